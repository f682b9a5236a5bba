import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/**
 * Idle connections are dropped after 4 s: before the 5 s a Node server (and many proxies) keeps
 * one open, so a request never goes out on a connection the server is closing.
 */
const idleSocketMs = 4_000;

// One pool per process, like the global `fetch`'s: every model shares warm connections. Idle
// sockets are unreferenced by Node's agent, so they never keep a process alive.
const agents = {
  'http:': new HttpAgent({ keepAlive: true, timeout: idleSocketMs, scheduling: 'lifo' }),
  'https:': new HttpsAgent({ keepAlive: true, timeout: idleSocketMs, scheduling: 'lifo' }),
};

const redirects = new Set([301, 302, 303, 307, 308]);
const nullBodyStatuses = new Set([101, 204, 205, 304]);

/** The request body as bytes, or `false` when it is a kind only the global `fetch` sends. */
function bodyBytes(body: RequestInit['body']): Uint8Array | string | undefined | false {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body))
    return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  return false;
}

/** The response's bytes as a web stream, decoded when the server compressed them. */
function bodyStream(response: IncomingMessage): ReadableStream<Uint8Array> {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .toLowerCase()
    .trim();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  const source = decoder ? response.pipe(decoder) : response;
  if (decoder) response.once('error', (error) => decoder.destroy(error));
  source.pause();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      source.on('data', (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) source.pause();
      });
      source.once('end', () => controller.close());
      source.once('error', (error) => controller.error(error));
      // Node ends a response cut mid-body with `aborted`, not always an error.
      response.once('aborted', () => controller.error(new TypeError('terminated')));
    },
    pull() {
      source.resume();
    },
    cancel(reason) {
      response.destroy(reason instanceof Error ? reason : undefined);
    },
  });
}

/**
 * A `fetch` for model SDKs (`openai`, `@anthropic-ai/sdk` take one) that sends over Node's own
 * HTTP client with one keep-alive connection pool per process, several times cheaper per request
 * than the global `fetch` (undici's WHATWG layers) on the short requests of a model loop. It
 * handles what those SDKs send: `http:`/`https:` URLs given as strings or `URL`s, string or byte
 * bodies, headers, and `signal` (an abort rejects with the signal's reason and cuts a body being
 * read); a compressed answer is decoded. Anything else (a `Request` object, a stream or form
 * body, a redirect to follow) goes to the global `fetch`, so the result is always what `fetch`
 * would give. A failed connection rejects with a `TypeError` whose `cause` is the socket's
 * error, as `fetch` does.
 */
export async function keepAliveFetch(
  input: string | URL | Request,
  init: RequestInit = {},
): Promise<Response> {
  if (typeof input !== 'string' && !(input instanceof URL)) return fetch(input, init);
  const url = new URL(input);
  const agent = url.protocol === 'http:' || url.protocol === 'https:' ? agents[url.protocol] : null;
  const body = bodyBytes(init.body);
  if (agent === null || body === false) return fetch(input, init);
  const { signal } = init;
  signal?.throwIfAborted();
  const headers: Record<string, string> = {};
  for (const [name, value] of new Headers(init.headers)) headers[name] = value;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  const method = (init.method ?? 'GET').toUpperCase();
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = send(url, { method, headers, agent }, resolve);
    const onAbort = () => {
      reject(signal?.reason);
      request.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    request.once('close', () => signal?.removeEventListener('abort', onAbort));
    request.once('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
    request.end(body);
  });
  const status = response.statusCode ?? 0;
  if (redirects.has(status) && response.headers.location && init.redirect !== 'manual') {
    response.resume();
    return fetch(input, init);
  }
  const responseHeaders = new Headers();
  const raw = response.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    responseHeaders.append(raw[index] as string, raw[index + 1] as string);
  }
  if (signal) {
    const onAbort = () => response.destroy(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    response.once('close', () => signal.removeEventListener('abort', onAbort));
  }
  const empty = method === 'HEAD' || nullBodyStatuses.has(status);
  if (empty) response.resume();
  return new Response(empty ? null : bodyStream(response), {
    status,
    statusText: response.statusMessage ?? '',
    headers: responseHeaders,
  });
}
