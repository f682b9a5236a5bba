import { runModelConformance } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { createOpenAIModel } from './openai-model.js';
import { fakeChatConformanceReplies } from './testing/fake-chat-conformance-replies.js';
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
        ...fakeChatConformanceReplies(server),
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
