import { fakeText, startFakeMessagesServer } from '@rlm/anthropic/testing';
import { fakeChatText, startFakeChatCompletionsServer } from '@rlm/openai/testing';
import { describe, expect, test } from 'vitest';
import { createCliModel } from './create-cli-model.js';
import { UsageError } from '../usage-error.js';

const ask = { system: '', messages: [{ role: 'user' as const, content: 'Hi' }] };

function usageMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(UsageError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('createCliModel', () => {
  test('anthropic: without ANTHROPIC_API_KEY, one line naming it and the model', () => {
    expect(
      usageMessage(() => createCliModel({ provider: 'anthropic', modelId: 'claude-x' }, {}, {})),
    ).toBe(
      'ANTHROPIC_API_KEY is not set; export ANTHROPIC_API_KEY=<your key> (from https://console.anthropic.com/settings/keys) to use anthropic:claude-x',
    );
  });

  test('openai: the OpenAI API needs OPENAI_API_KEY; another server does not', () => {
    expect(
      usageMessage(() => createCliModel({ provider: 'openai', modelId: 'gpt-4.1' }, {}, {})),
    ).toMatch(/^OPENAI_API_KEY is not set; export OPENAI_API_KEY=<your key> .* --base-url/);
    const viaEnv = createCliModel(
      { provider: 'openai', modelId: 'served' },
      { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
      {},
    );
    expect(viaEnv.modelId).toBe('openai:served');
  });

  test('ollama: no key, and OPENAI_API_KEY is never sent to it', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey: null,
      replies: [fakeChatText('local answer')],
    });
    const model = createCliModel(
      { provider: 'ollama', modelId: 'qwen2.5-coder:7b', baseURL: server.url },
      { OPENAI_API_KEY: 'sk-proj-must-stay-home-0123456789' },
      { maxRetries: 0 },
    );
    expect(model.modelId).toBe('ollama:qwen2.5-coder:7b');
    expect((await model.generate(ask)).text).toBe('local answer');
    expect(server.requests[0]?.headers.authorization).not.toContain('sk-proj');
    expect((server.requests[0]!.body as { model: string }).model).toBe('qwen2.5-coder:7b');
  });

  test('a --base-url wins over the environment: anthropic', async () => {
    await using server = await startFakeMessagesServer({ replies: [fakeText('from the flag')] });
    const model = createCliModel(
      { provider: 'anthropic', modelId: 'claude-x', baseURL: server.url },
      { ANTHROPIC_API_KEY: 'sk-ant-cli-test', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
      { maxRetries: 0 },
    );
    expect((await model.generate(ask)).text).toBe('from the flag');
  });
});
