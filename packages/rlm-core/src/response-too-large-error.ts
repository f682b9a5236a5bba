/**
 * For model adapters: a model response passed the adapter's `maxResponseBytes` (counted as it
 * arrives, so an answer that never ends is cut there). Retried like a server fault; once the
 * retries run out, the adapter reports it with `responseTooLargeError`.
 */
export class ResponseTooLargeError extends Error {
  /** The cap, in bytes. */
  readonly maxBytes: number;
  /** Bytes received when the cap was passed (more than `maxBytes`). */
  readonly receivedBytes: number;

  constructor(maxBytes: number, receivedBytes: number) {
    super(`the response passed ${maxBytes} bytes (maxResponseBytes)`);
    this.name = 'ResponseTooLargeError';
    this.maxBytes = maxBytes;
    this.receivedBytes = receivedBytes;
  }

  /** The cap for people: `8 MiB`. */
  get cap(): string {
    return describeByteCount(this.maxBytes);
  }

  /** What a retry notice says of it: `sent more than 8 MiB`. */
  get retryDetail(): string {
    return `sent more than ${this.cap}`;
  }

  /** What a final error says of it: `sent more than maxResponseBytes (8 MiB)`. */
  get failureDetail(): string {
    return `sent more than maxResponseBytes (${this.cap})`;
  }

  /** The first `ResponseTooLargeError` in `error` or its chain of causes, if any. */
  static findIn(error: unknown): ResponseTooLargeError | undefined {
    let current = error;
    for (let depth = 0; depth < 16 && current instanceof Error; depth++) {
      if (current instanceof ResponseTooLargeError) return current;
      current = current.cause;
    }
    return undefined;
  }
}

/** `8 MiB`, `1.5 KiB`, `512 bytes`. */
function describeByteCount(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB'] as const;
  if (bytes < 1024) return `${bytes} bytes`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}
