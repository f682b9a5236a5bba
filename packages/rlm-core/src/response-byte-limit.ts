import { ResponseTooLargeError } from './response-too-large-error.js';

/** Default `maxResponseBytes` of the model adapters: 8 MiB, far more than any model answer. */
export const defaultMaxResponseBytes = 8 * 1024 * 1024;

/**
 * The counting rule of `maxResponseBytes`, for model adapters: the bytes of one response (one
 * attempt of a model call), counted as they arrive, fail once they pass the cap.
 */
export class ResponseByteLimit {
  readonly #maxBytes: number;
  #received = 0;

  /** @param maxBytes the cap: a whole number of bytes, at least 1. */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes counted so far. */
  get receivedBytes(): number {
    return this.#received;
  }

  /**
   * Counts `bytes` more.
   *
   * @throws {ResponseTooLargeError} once the count passes the cap.
   */
  count(bytes: number): void {
    this.#received += bytes;
    if (this.#received > this.#maxBytes) {
      throw new ResponseTooLargeError(this.#maxBytes, this.#received);
    }
  }

  /** Counts the UTF-8 bytes of `text` (see {@link count}). */
  countText(text: string): void {
    this.count(Buffer.byteLength(text));
  }
}

/**
 * `response` with a body that errors with a `ResponseTooLargeError` as soon as more than
 * `maxBytes` of it arrive, which also cancels the rest: the connection is dropped there, however
 * long the server would go on. `onExceeded` is called first (an adapter aborts its attempt with
 * the error, so that whatever reads the body reports that and not a cut stream). Status and
 * headers are those of `response`.
 */
export function limitResponseBytes(
  response: Response,
  maxBytes: number,
  onExceeded?: (error: ResponseTooLargeError) => void,
): Response {
  if (response.body === null) return response;
  const limit = new ResponseByteLimit(maxBytes);
  // Read chunk by chunk as the consumer pulls: `pipeThrough` would cost several promise hops
  // a chunk, ~0.25 ms of a streamed model answer on loopback.
  const reader = response.body.getReader();
  const counted = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        try {
          limit.count(value.byteLength);
        } catch (error) {
          onExceeded?.(error as ResponseTooLargeError);
          controller.error(error);
          // The rest is not read: the connection is dropped here.
          await reader.cancel(error).catch(() => undefined);
          return;
        }
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  return new Response(counted, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * A `fetch` whose responses are each limited to `maxBytes` (see {@link limitResponseBytes}),
 * for an SDK client that takes a `fetch`.
 */
export function limitFetchResponses(
  fetchFunction: typeof fetch,
  maxBytes: number,
  onExceeded?: (error: ResponseTooLargeError) => void,
): typeof fetch {
  return async (input, init) =>
    limitResponseBytes(await fetchFunction(input, init), maxBytes, onExceeded);
}
