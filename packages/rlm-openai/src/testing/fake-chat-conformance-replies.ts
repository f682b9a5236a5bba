import type { ModelConformanceServer } from '@rlm/core/testing';
import type { FakeChatCompletionsServer } from './fake-chat-completions-server.js';
import {
  fakeChatDroppedConnection,
  fakeChatEndless,
  fakeChatError,
  fakeChatHang,
  fakeChatText,
  fakeChatToolCall,
} from './fake-chat-replies.js';

/**
 * What `runModelConformance` scripts, answered by a fake Chat Completions server: the
 * provider-neutral replies and counts of a `ModelConformanceServer`, for any adapter that talks
 * Chat Completions (`@rlm/openai`, `@ai-sdk/openai` through `@rlm/ai-sdk`). The caller adds the
 * model under test, the key and `close`.
 */
export function fakeChatConformanceReplies(
  server: FakeChatCompletionsServer,
): Omit<ModelConformanceServer, 'createModel' | 'secret' | 'close'> {
  return {
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
  };
}
