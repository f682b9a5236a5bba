import { createOpenAI } from '@ai-sdk/openai';
import { limitFetchResponses } from '@rlm/core';
import { runModelConformance } from '@rlm/core/testing';
import {
  fakeChatConformanceReplies,
  fakeChatText,
  startFakeChatCompletionsServer,
} from '@rlm/openai/testing';
import { describe, expect, test } from 'vitest';
import { createAISDKModel } from './ai-sdk-model.js';

const secret = 'sk-proj-ai-sdk-conformance-SECRET-0123456789';

/**
 * @ai-sdk/openai's Chat Completions model against the strict fake Chat Completions server,
 * through `doStream` (the default) or `doGenerate`. Unstreamed, the provider reads the body
 * itself: it is given a `fetch` from `limitFetchResponses`, as the README says to.
 */
function conformance(stream: boolean): void {
  runModelConformance({
    name: stream ? 'ai-sdk, streamed (the default)' : 'ai-sdk, unstreamed (stream: false)',
    api: { describe, expect, test },
    async create() {
      const server = await startFakeChatCompletionsServer({ apiKey: secret });
      return {
        secret,
        createModel: ({ maxRetries, maxResponseBytes }) => {
          const limited =
            maxResponseBytes === undefined || stream
              ? {}
              : { fetch: limitFetchResponses(fetch, maxResponseBytes) };
          const provider = createOpenAI({ apiKey: secret, baseURL: server.url, ...limited });
          return createAISDKModel(provider.chat('gpt-4.1'), {
            maxRetries,
            maxResponseBytes,
            stream,
            secrets: [secret],
          });
        },
        ...fakeChatConformanceReplies(server),
        close: () => server.close(),
      };
    },
  });
}

conformance(true);
conformance(false);

describe('@rlm/ai-sdk through @ai-sdk/openai: streams', () => {
  test('a stream cut mid-answer is retried as a network fault', async () => {
    const text = 'A streamed answer long enough to come in several pieces.';
    await using server = await startFakeChatCompletionsServer({
      apiKey: secret,
      replies: [{ ...fakeChatText(text), streamCutAfterChunks: 2 }, fakeChatText(text)],
    });
    const model = createAISDKModel(
      createOpenAI({ apiKey: secret, baseURL: server.url }).chat('gpt-4.1'),
      { maxRetries: 1 },
    );
    const reasons: string[] = [];
    const result = await model.generate(
      { system: '', messages: [{ role: 'user', content: 'Go' }] },
      { onRetry: (retry) => reasons.push(retry.reason) },
    );
    expect(result.text).toBe(text);
    expect(reasons).toEqual(['network']);
    expect((server.requests[0]!.body as { stream?: boolean }).stream).toBe(true);
  });
});
