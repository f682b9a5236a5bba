import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeEndlessly } from '@rlm/core/testing';
import type {
  FakeBodyDelivery,
  FakeContentBlock,
  FakeMessageReply,
  FakeReply,
} from './fake-messages-server-replies.js';
import { findMessagesRequestViolation } from './fake-messages-server-validation.js';
import {
  type FakeCacheUsage,
  FakePromptCache,
  type FakePromptCacheOptions,
} from './fake-prompt-cache.js';
import {
  type FakeStreamedMessage,
  formatStreamEvent,
  toMessageStreamEvents,
} from './to-message-stream-events.js';

/** A `POST /v1/messages` body that passed validation, as handlers receive it. */
export interface FakeMessagesRequest {
  readonly model: string;
  readonly max_tokens: number;
  readonly system?: string | readonly { readonly type: 'text'; readonly text: string }[];
  readonly messages: readonly {
    readonly role: 'user' | 'assistant';
    readonly content:
      | string
      | readonly { readonly type: string; readonly [key: string]: unknown }[];
  }[];
  readonly tools?: readonly {
    readonly name: string;
    readonly description?: string;
    readonly input_schema?: { readonly [key: string]: unknown };
  }[];
  readonly tool_choice?: { readonly type: string; readonly name?: string };
  readonly [key: string]: unknown;
}

/** One request the server received, whatever became of it. */
export interface FakeRecordedRequest {
  readonly method: string;
  /** Path and query, e.g. `/v1/messages`. */
  readonly path: string;
  /** Request headers, lower-cased names, as sent (credentials included). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The API key the request carried, from `x-api-key` or `Authorization: Bearer <key>` (the
   * SDK sends the latter).
   */
  readonly apiKey: string | undefined;
  /** The parsed JSON body; the raw text when it was not JSON. */
  readonly body: unknown;
  /**
   * The HTTP status answered; `undefined` while a delayed reply is pending, when the
   * connection was dropped, or when the client went away first (e.g. its timeout fired).
   */
  readonly status: number | undefined;
  /** The error body sent: validation, authentication, a scripted fault, or an exhausted script. */
  readonly error: { readonly type: string; readonly message: string } | undefined;
  /** The scripted reply used, if the request got that far. */
  readonly reply: FakeReply | undefined;
  /** For an endless reply: the body bytes it sent before the client went away. */
  readonly endlessBytes: number | undefined;
}

/** Decides the reply to a valid request when the queue is empty. */
export type FakeMessagesHandler = (
  request: FakeMessagesRequest,
  recorded: FakeRecordedRequest,
) => FakeReply | undefined | Promise<FakeReply | undefined>;

export interface FakeMessagesServerOptions {
  /** Replies served in order, one per valid request. Invalid requests consume none. */
  readonly replies?: readonly FakeReply[];
  /**
   * Consulted for each valid request once `replies` is used up. Returning `undefined` (or
   * having no handler) answers 500 `api_error` saying the script ran out. A handler that throws
   * answers 500 with its message.
   */
  readonly handler?: FakeMessagesHandler;
  /**
   * The only API key accepted (401 `authentication_error` for others). By default any
   * non-empty key is accepted; a request without one is always a 401. A key is read from
   * `x-api-key` or from `Authorization: Bearer <key>`, as the API does.
   */
  readonly apiKey?: string;
  /**
   * The emulated prompt cache (see {@link FakePromptCache}): always on, as in the API, where only
   * requests with `cache_control` blocks use it.
   */
  readonly promptCache?: FakePromptCacheOptions;
  /**
   * Whether requests with `stream: true` are answered with server-sent events (default true).
   * False answers them 400, as a proxy or gateway that cannot stream does.
   */
  readonly streaming?: boolean;
}

/** A loopback fake of the Anthropic Messages API, streamed (server-sent events) or not. */
export interface FakeMessagesServer extends AsyncDisposable {
  /** Base URL, e.g. `http://127.0.0.1:54321`: pass it as `baseURL` or `ANTHROPIC_BASE_URL`. */
  readonly url: string;
  /** Every request received, in arrival order (a live view). */
  readonly requests: readonly FakeRecordedRequest[];
  /** Scripted replies not yet used. */
  readonly pendingReplies: number;
  /** Appends replies to the script. */
  enqueue(...replies: FakeReply[]): void;
  /** Stops listening and drops open connections. Idempotent. */
  close(): Promise<void>;
}

type MutableRecord = { -readonly [Key in keyof FakeRecordedRequest]: FakeRecordedRequest[Key] };

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function apiKeyOf(headers: Readonly<Record<string, string>>): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
  return headers['x-api-key'] || bearer?.[1] || undefined;
}

function flattenHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** Resolves `true` after `ms`, or `false` as soon as the response closes (client gone). */
function waitWhileOpen(ms: number, response: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      response.off('close', onClose);
      resolve(true);
    }, ms);
    response.once('close', onClose);
  });
}

function estimateTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? '').length / 4));
}

/** The `usage` of a message: scripted when the reply gives input tokens, else from the cache. */
function messageUsage(reply: FakeMessageReply, cache: FakeCacheUsage): Record<string, number> {
  const scripted = reply.usage;
  return {
    input_tokens: scripted?.inputTokens ?? cache.inputTokens,
    output_tokens: scripted?.outputTokens ?? estimateTokens(reply.content),
    cache_creation_input_tokens:
      scripted?.cacheWriteTokens ??
      (scripted?.inputTokens === undefined ? cache.cacheWriteTokens : 0),
    cache_read_input_tokens:
      scripted?.cacheReadTokens ??
      (scripted?.inputTokens === undefined ? cache.cacheReadTokens : 0),
  };
}

/**
 * Starts a fake Anthropic Messages API on `127.0.0.1` (a free port). It validates each
 * `POST /v1/messages` like the real API (authentication, then the body; see
 * `findMessagesRequestViolation`) and answers violations with 400 `invalid_request_error`;
 * valid requests get the next scripted {@link FakeReply}. Every request is recorded.
 *
 * @example
 * ```ts
 * const server = await startFakeMessagesServer({ replies: [fakeText('hi')] });
 * const client = new Anthropic({ apiKey: 'test', baseURL: server.url });
 * // ... server.requests[0].body is what the client sent
 * await server.close();
 * ```
 */
export async function startFakeMessagesServer(
  options: FakeMessagesServerOptions = {},
): Promise<FakeMessagesServer> {
  const queue: FakeReply[] = [...(options.replies ?? [])];
  const requests: MutableRecord[] = [];
  let messageCount = 0;
  let toolUseCount = 0;
  const promptCache = new FakePromptCache(options.promptCache);

  function toContentBlock(block: FakeContentBlock): { type: string; [key: string]: unknown } {
    if (block.type === 'text') return { type: 'text', text: block.text, citations: null };
    return {
      type: 'tool_use',
      id: block.id ?? `toolu_fake_${++toolUseCount}`,
      name: block.name,
      input: block.input,
    };
  }

  function toMessage(reply: FakeMessageReply, request: FakeMessagesRequest): FakeStreamedMessage {
    const content = reply.content.map(toContentBlock);
    const hasToolUse = reply.content.some((block) => block.type === 'tool_use');
    const cached = promptCache.use(request);
    return {
      id: `msg_fake_${++messageCount}`,
      type: 'message',
      role: 'assistant',
      model: request.model,
      content,
      stop_reason: reply.stopReason ?? (hasToolUse ? 'tool_use' : 'end_turn'),
      stop_sequence: null,
      usage: messageUsage(reply, cached),
    };
  }

  async function nextReply(
    body: FakeMessagesRequest,
    record: MutableRecord,
  ): Promise<FakeReply | string> {
    const queued = queue.shift();
    if (queued) return queued;
    try {
      const handled = await options.handler?.(body, record);
      if (handled) return handled;
    } catch (error) {
      return `fake Messages server: the handler threw: ${error instanceof Error ? error.message : String(error)}`;
    }
    return (
      `fake Messages server: the script ran out of replies at request ${requests.indexOf(record) + 1}; ` +
      'add replies or a handler that answers this request'
    );
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    const parsed = parseJson(text);
    const headers = flattenHeaders(request);
    const record: MutableRecord = {
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      headers,
      apiKey: apiKeyOf(headers),
      body: parsed.ok ? parsed.value : text,
      status: undefined,
      error: undefined,
      reply: undefined,
      endlessBytes: undefined,
    };
    requests.push(record);
    const requestId = `req_fake_${requests.length}`;

    const sendError = (
      status: number,
      type: string,
      message: string,
      headers: Readonly<Record<string, string>> = {},
    ) => {
      record.status = status;
      record.error = { type, message };
      response.writeHead(status, {
        ...headers,
        'content-type': 'application/json',
        'request-id': requestId,
      });
      response.end(
        JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId }),
      );
    };

    const pathname = new URL(record.path, 'http://fake').pathname;
    if (record.method !== 'POST' || pathname !== '/v1/messages') {
      sendError(
        404,
        'not_found_error',
        `the fake Messages server serves only POST /v1/messages, not ${record.method} ${pathname}`,
      );
      return;
    }
    if (!record.apiKey) {
      sendError(
        401,
        'authentication_error',
        'an API key is required: send x-api-key or Authorization: Bearer <key>',
      );
      return;
    }
    if (options.apiKey !== undefined && record.apiKey !== options.apiKey) {
      sendError(401, 'authentication_error', 'invalid x-api-key');
      return;
    }
    if (!record.headers['anthropic-version']) {
      sendError(400, 'invalid_request_error', 'anthropic-version: header is required');
      return;
    }
    if (!parsed.ok) {
      sendError(400, 'invalid_request_error', 'The request body is not valid JSON.');
      return;
    }
    const violation = findMessagesRequestViolation(parsed.value);
    if (violation) {
      sendError(400, 'invalid_request_error', violation);
      return;
    }
    const streamed = (parsed.value as { stream?: unknown }).stream === true;
    if (streamed && options.streaming === false) {
      sendError(
        400,
        'invalid_request_error',
        'stream: this server does not stream; send the request without `stream`',
      );
      return;
    }

    const body = parsed.value as FakeMessagesRequest;
    const reply = await nextReply(body, record);
    if (typeof reply === 'string') {
      sendError(500, 'api_error', reply);
      return;
    }
    record.reply = reply;
    if (reply.kind === 'hang') {
      await new Promise((resolve) => response.once('close', resolve));
      return;
    }
    if (reply.kind === 'endless') {
      record.status = 200;
      response.writeHead(200, {
        'content-type': streamed ? 'text/event-stream; charset=utf-8' : 'application/json',
        'request-id': requestId,
      });
      const text = 'endless '.repeat(512);
      let start = `{"id":"msg_endless","type":"message","role":"assistant","model":${JSON.stringify(body.model)},"content":[{"type":"text","text":"`;
      let chunk = text;
      if (streamed) {
        const [messageStart] = toMessageStreamEvents(
          toMessage({ kind: 'message', content: [] }, body),
        );
        start = [
          messageStart!,
          {
            event: 'content_block_start',
            data: {
              type: 'content_block_start',
              index: 0,
              content_block: { type: 'text', text: '' },
            },
          },
        ]
          .map(formatStreamEvent)
          .join('');
        chunk = formatStreamEvent({
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
        });
      }
      response.write(start);
      record.endlessBytes = await writeEndlessly(response, chunk);
      return;
    }
    if (reply.delayMs && !(await waitWhileOpen(reply.delayMs, response))) return;
    const sendBody = async (
      status: number,
      contentType: string,
      text: string,
      delivery: FakeBodyDelivery,
    ) => {
      const bytes = Buffer.from(text, 'utf8');
      record.status = status;
      response.writeHead(status, {
        'content-type': contentType,
        'content-length': `${bytes.length}`,
        'request-id': requestId,
      });
      if (delivery.bodyDelayMs) {
        response.flushHeaders();
        if (!(await waitWhileOpen(delivery.bodyDelayMs, response))) return;
      }
      if (delivery.cutAfterBytes === undefined) {
        response.end(bytes);
        return;
      }
      response.write(bytes.subarray(0, delivery.cutAfterBytes), () => request.socket.destroy());
    };
    /** Sends `reply` as server-sent events, as the API streams a message. */
    const sendStream = async (reply: FakeMessageReply) => {
      const delivery = reply.stream ?? {};
      const events = toMessageStreamEvents(toMessage(reply, body), delivery);
      record.status = 200;
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'request-id': requestId,
      });
      response.flushHeaders();
      if (reply.bodyDelayMs && !(await waitWhileOpen(reply.bodyDelayMs, response))) return;
      let sentBytes = 0;
      for (const [index, event] of events.entries()) {
        if (index === delivery.cutAfterEvents) {
          request.socket.destroy();
          return;
        }
        if (index === delivery.hangAfterEvents) {
          await new Promise((resolve) => response.once('close', resolve));
          return;
        }
        if (index === delivery.errorAfterEvents) {
          const error = {
            type: delivery.errorType ?? 'overloaded_error',
            message: delivery.errorMessage ?? 'Overloaded',
          };
          record.error = error;
          response.end(formatStreamEvent({ event: 'error', data: { type: 'error', error } }));
          return;
        }
        if (index > 0 && delivery.eventDelayMs) {
          if (!(await waitWhileOpen(delivery.eventDelayMs, response))) return;
        }
        const bytes = Buffer.from(formatStreamEvent(event), 'utf8');
        if (reply.cutAfterBytes !== undefined && sentBytes + bytes.length > reply.cutAfterBytes) {
          const rest = bytes.subarray(0, reply.cutAfterBytes - sentBytes);
          response.write(rest, () => request.socket.destroy());
          return;
        }
        sentBytes += bytes.length;
        // Each event is flushed before the next, so a cut or an error comes after what was sent.
        await new Promise((resolve) => response.write(bytes, resolve));
      }
      response.end();
    };
    switch (reply.kind) {
      case 'drop':
        request.socket.destroy();
        return;
      case 'error':
        sendError(reply.status, reply.errorType, reply.message, reply.headers);
        return;
      case 'message':
        if (streamed) {
          await sendStream(reply);
          return;
        }
        await sendBody(200, 'application/json', JSON.stringify(toMessage(reply, body)), reply);
        return;
      case 'raw':
        await sendBody(reply.status, reply.contentType, reply.body, reply);
        return;
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : undefined);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get pendingReplies() {
      return queue.length;
    },
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
