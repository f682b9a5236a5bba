import { runModelConformance } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { createOpenAIModel } from './openai-model.js';
import {
  fakeChatDroppedConnection,
  fakeChatEndless,
  fakeChatError,
  fakeChatHang,
  fakeChatText,
  fakeChatToolCall,
} from './testing/fake-chat-replies.js';
import { startFakeChatCompletionsServer } from './testing/fake-chat-completions-server.js';

const secret = 'sk-proj-conformance-SECRET-0123456789';

/** The fake Chat Completions server, with the adapter streaming (the default) or not. */
function conformance(stream: boolean): void {
  runModelConformance({
    name: stream ? 'openai, streamed (the default)' : 'openai, unstreamed (stream: false)',
    api: { describe, expect, test },
    async create() {
      const server = await startFakeChatCompletionsServer({ apiKey: secret });
      return {
        secret,
        createModel: ({ maxRetries, maxResponseBytes }) =>
          createOpenAIModel({
            model: 'gpt-4.1',
            apiKey: secret,
            baseURL: server.url,
            maxRetries,
            maxResponseBytes,
            stream,
          }),
        replyText: (text, usage) =>
          server.enqueue(
            fakeChatText(text, {
              usage: {
                promptTokens: usage.inputTokens + usage.cacheReadTokens,
                completionTokens: usage.outputTokens,
                cachedTokens: usage.cacheReadTokens,
              },
            }),
          ),
        replyToolCall: ({ id, name, input }) =>
          server.enqueue(fakeChatToolCall(name, input, { id })),
        replyError: (status, options = {}) => server.enqueue(fakeChatError(status, options)),
        replyDroppedConnection: () => server.enqueue(fakeChatDroppedConnection()),
        replyHang: () => server.enqueue(fakeChatHang()),
        replyEndless: () => server.enqueue(fakeChatEndless()),
        endlessBytesSent: () =>
          server.requests.reduce((sum, request) => sum + (request.endlessBytes ?? 0), 0),
        requestCount: () => server.requests.length,
        lastForcedTool() {
          const body = server.requests.at(-1)?.body as
            | { tool_choice?: { type?: string; function?: { name?: string } } }
            | undefined;
          const choice = body?.tool_choice;
          return typeof choice === 'object' && choice.type === 'function'
            ? choice.function?.name
            : undefined;
        },
        async close() {
          await server.close();
          // Every request took the path under test.
          const streamed = server.requests.map(
            (request) => (request.body as { stream?: unknown }).stream === true,
          );
          expect(streamed.every((flag) => flag === stream)).toBe(true);
        },
      };
    },
  });
}

conformance(true);
conformance(false);
