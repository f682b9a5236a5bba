import { runModelConformance } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { createOpenAIModel } from './openai-model.js';
import {
  fakeChatDroppedConnection,
  fakeChatError,
  fakeChatHang,
  fakeChatText,
  fakeChatToolCall,
} from './testing/fake-chat-replies.js';
import { startFakeChatCompletionsServer } from './testing/fake-chat-completions-server.js';

const secret = 'sk-proj-conformance-SECRET-0123456789';

runModelConformance({
  name: 'openai',
  api: { describe, expect, test },
  async create() {
    const server = await startFakeChatCompletionsServer({ apiKey: secret });
    return {
      secret,
      createModel: ({ maxRetries }) =>
        createOpenAIModel({ model: 'gpt-4.1', apiKey: secret, baseURL: server.url, maxRetries }),
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
      replyToolCall: ({ id, name, input }) => server.enqueue(fakeChatToolCall(name, input, { id })),
      replyError: (status, options = {}) => server.enqueue(fakeChatError(status, options)),
      replyDroppedConnection: () => server.enqueue(fakeChatDroppedConnection()),
      replyHang: () => server.enqueue(fakeChatHang()),
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
      close: () => server.close(),
    };
  },
});
