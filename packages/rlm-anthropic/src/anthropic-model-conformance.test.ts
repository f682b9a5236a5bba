import { type ModelConformanceServer, runModelConformance } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { createAnthropicModel } from './anthropic-model.js';
import { startFakeMessagesServer } from './testing/fake-messages-server.js';
import {
  fakeDroppedConnection,
  fakeEndless,
  fakeError,
  fakeHang,
  fakeText,
  fakeToolUse,
} from './testing/fake-messages-server-replies.js';

const secret = 'sk-ant-conformance-SECRET-0123456789';

/** The fake Messages API, with the adapter streaming (the default) or not. */
function conformance(stream: boolean): void {
  runModelConformance({
    name: stream ? 'anthropic, streamed (the default)' : 'anthropic, unstreamed (stream: false)',
    api: { describe, expect, test },
    async create(): Promise<ModelConformanceServer> {
      const server = await startFakeMessagesServer({ apiKey: secret, streaming: stream });
      return {
        secret,
        createModel: ({ maxRetries, maxResponseBytes }) =>
          createAnthropicModel({
            apiKey: secret,
            baseURL: server.url,
            maxRetries,
            maxResponseBytes,
            stream,
          }),
        replyText: (text, usage) =>
          server.enqueue(fakeText(text, { usage, stream: { deltaChars: 3 } })),
        replyToolCall: ({ id, name, input }) =>
          server.enqueue(fakeToolUse(name, input, { id, stream: { deltaChars: 3 } })),
        replyError: (status, options = {}) => server.enqueue(fakeError(status, options)),
        replyDroppedConnection: () => server.enqueue(fakeDroppedConnection()),
        replyHang: () => server.enqueue(fakeHang()),
        replyEndless: () => server.enqueue(fakeEndless()),
        endlessBytesSent: () =>
          server.requests.reduce((sum, request) => sum + (request.endlessBytes ?? 0), 0),
        requestCount: () => server.requests.length,
        lastForcedTool() {
          const body = server.requests.at(-1)?.body as
            | { tool_choice?: { type: string; name?: string } }
            | undefined;
          return body?.tool_choice?.type === 'tool' ? body.tool_choice.name : undefined;
        },
        async close() {
          await server.close();
          // Every request took the path under test (unstreamed ones would get a 400 anyway).
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
