import { randomBytes } from 'node:crypto';
import { AbortedError } from '@rlm/core';
import type { Context, Hono } from 'hono';
import { ServedRequestError } from '../errors/served-request-error.js';
import type { RlmService, StartedRun } from '../rlm-service.js';
import {
  type CompletionIdentity,
  chatCompletionBody,
  chatCompletionChunk,
  errorBody,
  finishReason,
  runExtension,
  usageBody,
} from './chat-completion-body.js';
import {
  type ChatCompletionRequest,
  parseChatCompletionRequest,
} from './parse-chat-completion-request.js';
import { SseWriter } from './sse-writer.js';

/** Settings of the OpenAI-compatible routes. */
export interface OpenAIRoutesSettings {
  /** A `: keep-alive` comment on a stream after this much silence, in ms (0 for none). */
  readonly keepAliveMs: number;
}

/** The JSON response of a request error, in the OpenAI error shape. */
export function errorResponse(error: ServedRequestError): Response {
  return Response.json(errorBody(error), {
    status: error.status,
    headers: error.status === 429 ? { 'retry-after': '1' } : {},
  });
}

/**
 * Adds `GET /v1/models`, `GET /v1/models/:id` and `POST /v1/chat/completions` to `app`. The body
 * is parsed here; its size and the bearer token are checked before (see `createRlmHttpApp`).
 */
export function addOpenAIRoutes(
  app: Hono,
  service: RlmService,
  settings: OpenAIRoutesSettings,
): void {
  const created = Math.floor(Date.now() / 1000);
  const modelBody = (id: string) => ({ id, object: 'model', created, owned_by: 'rlm' });
  app.get('/v1/models', () =>
    Response.json({ object: 'list', data: service.models.ids.map(modelBody) }),
  );
  app.get('/v1/models/:id{.+}', (c) => {
    const id = c.req.param('id');
    if (service.models.ids.includes(id)) return Response.json(modelBody(id));
    return errorResponse(
      new ServedRequestError(
        `model ${JSON.stringify(id)} is not listed here; GET /v1/models lists the served ones`,
        { status: 404, code: 'model_not_found', param: 'model' },
      ),
    );
  });
  app.post('/v1/chat/completions', (c) => chatCompletion(c, service, settings));
}

async function chatCompletion(
  c: Context,
  service: RlmService,
  settings: OpenAIRoutesSettings,
): Promise<Response> {
  const startedAt = Date.now();
  const identity = {
    id: `chatcmpl-${randomBytes(12).toString('hex')}`,
    created: Math.floor(startedAt / 1000),
  };
  let request: ChatCompletionRequest | undefined;
  let model: unknown;
  /** Set once the run started: it logs itself when it ends. */
  let started: StartedRun | undefined;
  try {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch (error) {
      if (ServedRequestError.isInstance(error)) throw error;
      throw new ServedRequestError(
        'the body is not JSON; send a Chat Completions request as application/json',
        { status: 400, code: 'invalid_json', cause: error },
      );
    }
    model = (body as { model?: unknown } | null)?.model;
    request = parseChatCompletionRequest(body);
    const stream = request.stream ? new SseWriter(settings) : undefined;
    const signal = stream
      ? AbortSignal.any([c.req.raw.signal, stream.cancelled])
      : c.req.raw.signal;
    started = await service.start({
      protocol: 'openai',
      requestId: identity.id,
      startedAt,
      model: request.model,
      query: request.query,
      messages: request.messages,
      inline: request.inline,
      paths: request.paths,
      pathsParam: 'context_paths',
      files: request.files,
      limits: request.limits,
      stream: request.stream,
      signal,
      ...(stream
        ? { onProgress: (progress) => stream.comment(`rlm ${JSON.stringify(progress)}`) }
        : {}),
    });
    const served = { ...identity, model: started.model };
    if (stream) return streamAnswer(stream, served, started, request.includeUsage);
    const answer = await started.done;
    return Response.json(chatCompletionBody(served, answer), {
      headers: { 'x-request-id': identity.id },
    });
  } catch (error) {
    if (AbortedError.isInstance(error)) return new Response(null, { status: 499 });
    // A run that started logs itself when it ends.
    const failure =
      started === undefined
        ? service.refuse(
            {
              protocol: 'openai',
              requestId: identity.id,
              startedAt,
              model,
              ...(request ? { stream: request.stream } : {}),
            },
            error,
          )
        : ServedRequestError.from(error);
    const response = errorResponse(failure);
    response.headers.set('x-request-id', identity.id);
    return response;
  }
}

/** The SSE response of a started run: progress comments, then the answer, usage and `[DONE]`. */
function streamAnswer(
  stream: SseWriter,
  identity: CompletionIdentity,
  started: StartedRun,
  includeUsage: boolean,
): Response {
  stream.data(
    chatCompletionChunk(identity, {
      delta: { role: 'assistant', content: '' },
      finishReason: null,
    }),
  );
  started.done.then(
    (answer) => {
      if (answer.answer !== '') {
        stream.data(
          chatCompletionChunk(identity, { delta: { content: answer.answer }, finishReason: null }),
        );
      }
      stream.data(
        chatCompletionChunk(
          identity,
          { delta: {}, finishReason: finishReason(answer) },
          { rlm: runExtension(answer) },
        ),
      );
      if (includeUsage) {
        stream.data(chatCompletionChunk(identity, undefined, { usage: usageBody(answer.usage) }));
      }
      stream.data('[DONE]');
      stream.close();
    },
    (error: unknown) => {
      if (ServedRequestError.isInstance(error)) stream.data(errorBody(error));
      stream.close();
    },
  );
  return new Response(stream.body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': identity.id,
    },
  });
}
