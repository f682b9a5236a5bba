import { type ModelConformanceHarness, runModelConformance } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { createAnthropicModel } from './anthropic-model.js';
import { startFakeMessagesServer } from './testing/fake-messages-server.js';
import {
  fakeDroppedConnection,
  fakeError,
  fakeHang,
  fakeText,
  fakeToolUse,
} from './testing/fake-messages-server-replies.js';

const secret = 'sk-ant-conformance-SECRET-0123456789';

/** The fake Messages API, with the adapter streaming (the default) or not. */
function harness(stream: boolean): ModelConformanceHarness {
  return {
    async start() {
      const server = await startFakeMessagesServer({ apiKey: secret, streaming: stream });
      return {
        secret,
        createModel: ({ maxRetries }) =>
          createAnthropicModel({ apiKey: secret, baseURL: server.url, maxRetries, stream }),
        replyText: (text, usage) =>
          server.enqueue(fakeText(text, { usage, stream: { deltaChars: 3 } })),
        replyToolCall: ({ id, name, input }) =>
          server.enqueue(fakeToolUse(name, input, { id, stream: { deltaChars: 3 } })),
        replyError: (status, options = {}) => server.enqueue(fakeError(status, options)),
        replyDroppedConnection: () => server.enqueue(fakeDroppedConnection()),
        replyHang: () => server.enqueue(fakeHang()),
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
  };
}

describe('streamed (the default)', () =>
  runModelConformance({ describe, expect, test }, harness(true)));
describe('unstreamed (stream: false)', () =>
  runModelConformance({ describe, expect, test }, harness(false)));
