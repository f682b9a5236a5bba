import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeEndlessly } from '@rlm/core/testing';
import type { FakeChatCompletionReply, FakeChatReply } from './fake-chat-replies.js';
import { findChatRequestViolation } from './find-chat-request-violation.js';

/** A `POST /v1/chat/completions` body that passed validation. */
export interface FakeChatRequest {
  readonly model: string;
  readonly messages: readonly {
    readonly role: string;
    readonly content?: unknown;
    readonly tool_calls?: readonly {
      readonly id: string;
      readonly function: { readonly name: string; readonly arguments: string };
    }[];
    readonly tool_call_id?: string;
  }[];
  readonly tools?: readonly {
    readonly type: 'function';
    readonly function: { readonly name: string; readonly parameters?: unknown };
  }[];
  readonly tool_choice?:
    | string
    | { readonly type: 'function'; readonly function: { name: string } };
  readonly [key: string]: unknown;
}

/** One request the server received, whatever became of it. */
export interface FakeChatRecordedRequest {
  readonly method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  readonly path: string;
  /** Request headers, lower-cased names, as sent (credentials included). */
  readonly headers: Readonly<Record<string, string>>;
  /** The key from `Authorization: Bearer <key>`, if any. */
  readonly apiKey: string | undefined;
  /** The parsed JSON body; the raw text when it was not JSON. */
  readonly body: unknown;
  /** The HTTP status answered; `undefined` when none was (dropped, hung, client gone). */
  readonly status: number | undefined;
  /** The error sent, if any. */
  readonly error: { readonly type: string; readonly message: string } | undefined;
  /** The scripted reply used, if the request got that far. */
  readonly reply: FakeChatReply | undefined;
  /** For an endless reply: the body bytes it sent before the client went away. */
  readonly endlessBytes: number | undefined;
}

/** Decides the reply to a valid request once the scripted replies are used up. */
export type FakeChatHandler = (
  request: FakeChatRequest,
  recorded: FakeChatRecordedRequest,
) => FakeChatReply | undefined | Promise<FakeChatReply | undefined>;

export interface FakeChatCompletionsServerOptions {
  /** Replies served in order, one per valid request. Invalid requests consume none. */
  readonly replies?: readonly FakeChatReply[];
  /**
   * Consulted for each valid request once `replies` is used up; `undefined` (or no handler)
   * answers 500 saying the script ran out.
   */
  readonly handler?: FakeChatHandler;
  /**
   * The only API key accepted (401 for others). `undefined` (the default) accepts any
   * non-empty key and answers 401 to a request without one, as the OpenAI API does; `null`
   * needs no key, as a local server (Ollama, vLLM) does.
   */
  readonly apiKey?: string | null;
  /**
   * Answer every request that offers tools with 400, as a model without tool support does on
   * Ollama (`<model> does not support tools`). Default false.
   */
  readonly toolsUnsupported?: boolean;
  /**
   * How many of the latest requests `requests` keeps. Default: every one. A benchmark of
   * hundreds of growing requests keeps fewer, so that the server's own memory does not grow
   * with the square of the run and slow what it measures.
   */
  readonly keepRequests?: number;
}

/** A loopback fake of the OpenAI Chat Completions API, streaming (SSE) when asked to. */
export interface FakeChatCompletionsServer extends AsyncDisposable {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:54321/v1`: pass it as `baseURL`. */
  readonly url: string;
  /** Every request received, in arrival order (a live view). */
  readonly requests: readonly FakeChatRecordedRequest[];
  /** Scripted replies not yet used. */
  readonly pendingReplies: number;
  /** Appends replies to the script. */
  enqueue(...replies: FakeChatReply[]): void;
  /** Stops listening and drops open connections. Idempotent. */
  close(): Promise<void>;
}

type MutableRecord = {
  -readonly [Key in keyof FakeChatRecordedRequest]: FakeChatRecordedRequest[Key];
};

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

/** Characters of text (or of tool call arguments) in one streamed chunk. */
const streamPieceLength = 16;

function pieces(text: string): string[] {
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += streamPieceLength) {
    parts.push(text.slice(start, start + streamPieceLength));
  }
  return parts;
}

interface CompletionShape {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly object: string;
  readonly choices: readonly {
    readonly [key: string]: unknown;
    readonly message: {
      readonly [key: string]: unknown;
      readonly content: string | null;
      readonly tool_calls?: readonly {
        readonly id: string;
        readonly function: { readonly name: string; readonly arguments: string };
      }[];
    };
    readonly finish_reason: string;
  }[];
  readonly usage: unknown;
}

/**
 * A completion as the `chat.completion.chunk` objects of a stream: the role, the text in
 * pieces, each tool call (id and name first, then its arguments in pieces), the finish reason,
 * and the usage in a last chunk without choices when `includeUsage`.
 */
function toChunks(completion: CompletionShape, includeUsage: boolean): object[] {
  const choice = completion.choices[0]!;
  const base = {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
  };
  const chunk = (delta: object, finishReason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  });
  const chunks: object[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of pieces(choice.message.content ?? '')) chunks.push(chunk({ content: piece }));
  for (const [index, call] of (choice.message.tool_calls ?? []).entries()) {
    chunks.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.id,
            type: 'function',
            function: { name: call.function.name, arguments: '' },
          },
        ],
      }),
    );
    for (const piece of pieces(call.function.arguments)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  }
  chunks.push(chunk({}, choice.finish_reason));
  if (includeUsage) chunks.push({ ...base, choices: [], usage: completion.usage });
  return chunks;
}

/**
 * Starts a fake OpenAI Chat Completions API on `127.0.0.1` (a free port). It checks each
 * `POST /v1/chat/completions` like the real API (the key, then the body; see
 * `findChatRequestViolation`) and answers violations with 400 `invalid_request_error`; valid
 * requests get the next scripted {@link FakeChatReply}. Every request is recorded (the latest `keepRequests` kept).
 *
 * @example
 * ```ts
 * const server = await startFakeChatCompletionsServer({ replies: [fakeChatText('hi')] });
 * const model = createOpenAIModel({ model: 'gpt-4.1', apiKey: 'test', baseURL: server.url });
 * await server.close();
 * ```
 */
export async function startFakeChatCompletionsServer(
  options: FakeChatCompletionsServerOptions = {},
): Promise<FakeChatCompletionsServer> {
  const queue: FakeChatReply[] = [...(options.replies ?? [])];
  const requests: MutableRecord[] = [];
  const keepRequests = options.keepRequests ?? Number.POSITIVE_INFINITY;
  if (!(keepRequests >= 1)) {
    throw new Error(`keepRequests must be at least 1, got ${options.keepRequests}`);
  }
  /** Requests received so far (`requests` may keep fewer). */
  let received = 0;
  let completionCount = 0;
  let toolCallCount = 0;

  function toCompletion(reply: FakeChatCompletionReply, request: FakeChatRequest): CompletionShape {
    const toolCalls = (reply.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_fake_${++toolCallCount}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    const usage = reply.usage ?? {};
    const promptTokens =
      usage.promptTokens ?? estimateTokens([request.messages, request.tools ?? []]);
    const completionTokens =
      usage.completionTokens ?? estimateTokens([reply.content ?? '', reply.toolCalls ?? []]);
    return {
      id: `chatcmpl-fake-${++completionCount}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.content ?? null,
            refusal: null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
        ...(usage.cachedTokens === undefined
          ? {}
          : { prompt_tokens_details: { cached_tokens: usage.cachedTokens } }),
      },
    };
  }

  async function nextReply(
    body: FakeChatRequest,
    record: MutableRecord,
    number: number,
  ): Promise<FakeChatReply | string> {
    const queued = queue.shift();
    if (queued) return queued;
    try {
      const handled = await options.handler?.(body, record);
      if (handled) return handled;
    } catch (error) {
      return `fake Chat Completions server: the handler threw: ${error instanceof Error ? error.message : String(error)}`;
    }
    return `fake Chat Completions server: the script ran out of replies at request ${number}; add replies or a handler that answers this request`;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    const parsed = parseJson(text);
    const headers = flattenHeaders(request);
    const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
    const record: MutableRecord = {
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      headers,
      apiKey: bearer?.[1],
      body: parsed.ok ? parsed.value : text,
      status: undefined,
      error: undefined,
      reply: undefined,
      endlessBytes: undefined,
    };
    received += 1;
    const number = received;
    requests.push(record);
    if (requests.length > keepRequests) requests.splice(0, requests.length - keepRequests);
    const requestId = `req_fake_${number}`;

    const sendError = (
      status: number,
      type: string,
      message: string,
      extraHeaders: Readonly<Record<string, string>> = {},
    ) => {
      record.status = status;
      record.error = { type, message };
      response.writeHead(status, {
        ...extraHeaders,
        'content-type': 'application/json',
        'x-request-id': requestId,
      });
      response.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
    };

    const pathname = new URL(record.path, 'http://fake').pathname;
    if (record.method !== 'POST' || pathname !== '/v1/chat/completions') {
      sendError(
        404,
        'not_found_error',
        `the fake Chat Completions server serves only POST /v1/chat/completions, not ${record.method} ${pathname}`,
      );
      return;
    }
    if (options.apiKey !== null) {
      if (!record.apiKey) {
        sendError(
          401,
          'invalid_request_error',
          'You did not provide an API key: send Authorization: Bearer <key>.',
        );
        return;
      }
      if (options.apiKey !== undefined && record.apiKey !== options.apiKey) {
        sendError(401, 'invalid_request_error', 'Incorrect API key provided.');
        return;
      }
    }
    if (!parsed.ok) {
      sendError(400, 'invalid_request_error', 'The request body is not valid JSON.');
      return;
    }
    const violation = findChatRequestViolation(parsed.value);
    if (violation) {
      sendError(400, 'invalid_request_error', violation);
      return;
    }
    const body = parsed.value as FakeChatRequest;
    if (options.toolsUnsupported && body.tools !== undefined) {
      sendError(400, 'invalid_request_error', `${body.model} does not support tools`);
      return;
    }

    const reply = await nextReply(body, record, number);
    if (typeof reply === 'string') {
      sendError(500, 'server_error', reply);
      return;
    }
    record.reply = reply;
    if (reply.kind === 'hang') {
      await new Promise((resolve) => response.once('close', resolve));
      return;
    }
    if (reply.kind === 'endless') {
      record.status = 200;
      const streamed = body.stream === true;
      response.writeHead(200, {
        'content-type': streamed ? 'text/event-stream' : 'application/json',
        'x-request-id': requestId,
      });
      const text = 'endless '.repeat(512);
      const [first, next] = [{ role: 'assistant', content: '' }, { content: text }].map(
        (delta) =>
          `data: ${JSON.stringify({
            id: 'chatcmpl-endless',
            object: 'chat.completion.chunk',
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [{ index: 0, delta, finish_reason: null, logprobs: null }],
          })}\n\n`,
      );
      response.write(
        streamed
          ? first!
          : `{"id":"chatcmpl-endless","object":"chat.completion","model":${JSON.stringify(body.model)},"choices":[{"index":0,"message":{"role":"assistant","content":"`,
      );
      record.endlessBytes = await writeEndlessly(response, streamed ? next! : text);
      return;
    }
    if (reply.delayMs && !(await waitWhileOpen(reply.delayMs, response))) return;
    const send = (status: number, contentType: string, payload: string) => {
      record.status = status;
      response.writeHead(status, { 'content-type': contentType, 'x-request-id': requestId });
      response.end(payload);
    };
    switch (reply.kind) {
      case 'drop':
        request.socket.destroy();
        return;
      case 'error':
        sendError(reply.status, reply.errorType, reply.message, reply.headers);
        return;
      case 'completion': {
        const completion = toCompletion(reply, body);
        if (body.stream === true) {
          record.status = 200;
          response.writeHead(200, {
            'content-type': 'text/event-stream',
            'x-request-id': requestId,
          });
          const includeUsage =
            (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage ===
            true;
          const chunks = toChunks(completion, includeUsage);
          const cut = reply.streamCutAfterChunks;
          for (const [index, chunk] of (cut === undefined
            ? chunks
            : chunks.slice(0, cut)
          ).entries()) {
            if (index === reply.streamHangAfterChunks) {
              await new Promise((resolve) => response.once('close', resolve));
              return;
            }
            if (index > 0 && reply.streamChunkDelayMs) {
              response.flushHeaders();
              if (!(await waitWhileOpen(reply.streamChunkDelayMs, response))) return;
            }
            response.write(`data: ${JSON.stringify(chunk)}\n\n`);
          }
          if (cut !== undefined) {
            response.write('', () => request.socket.destroy());
            return;
          }
          response.end('data: [DONE]\n\n');
          return;
        }
        send(200, 'application/json', JSON.stringify(completion));
        return;
      }
      case 'raw':
        send(reply.status, reply.contentType, reply.body);
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
    url: `http://127.0.0.1:${port}/v1`,
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
