import { describe, expect, test } from 'vitest';
import { startFakeMessagesServer } from './testing/fake-messages-server.js';
import {
  fakeDroppedConnection,
  fakeError,
  fakeHang,
  fakeText,
  fakeToolUse,
} from './testing/fake-messages-server-replies.js';
import { runModelConformance } from '@rlm/core/testing';
import { createAnthropicModel } from './anthropic-model.js';

const secret = 'sk-ant-conformance-SECRET-0123456789';

runModelConformance(
  { describe, expect, test },
  {
    async start() {
      const server = await startFakeMessagesServer({ apiKey: secret });
      return {
        secret,
        createModel: ({ maxRetries }) =>
          createAnthropicModel({ apiKey: secret, baseURL: server.url, maxRetries }),
        replyText: (text, usage) => server.enqueue(fakeText(text, { usage })),
        replyToolCall: ({ id, name, input }) => server.enqueue(fakeToolUse(name, input, { id })),
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
        close: () => server.close(),
      };
    },
  },
);
