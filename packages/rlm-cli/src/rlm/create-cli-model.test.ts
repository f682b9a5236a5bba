import { fakeText, startFakeMessagesServer } from '@rlm/anthropic/testing';
import { fakeChatText, startFakeChatCompletionsServer } from '@rlm/openai/testing';
import { describe, expect, test } from 'vitest';
import { createCliModel, createCliModelWith, loadCliModelAdapters } from './create-cli-model.js';
import { UsageError } from '../usage-error.js';

const ask = { system: '', messages: [{ role: 'user' as const, content: 'Hi' }] };

async function usageMessage(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    expect(UsageError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('createCliModel', () => {
  test('anthropic: without ANTHROPIC_API_KEY, one line naming it and the model', async () => {
    expect(
      await usageMessage(() =>
        createCliModel({ provider: 'anthropic', modelId: 'claude-x' }, {}, {}),
      ),
    ).toBe(
      'ANTHROPIC_API_KEY is not set; export ANTHROPIC_API_KEY=<your key> (from https://console.anthropic.com/settings/keys) to use anthropic:claude-x',
    );
  });

  test('openai: the OpenAI API needs OPENAI_API_KEY; another server does not', async () => {
    expect(
      await usageMessage(() => createCliModel({ provider: 'openai', modelId: 'gpt-4.1' }, {}, {})),
    ).toMatch(/^OPENAI_API_KEY is not set; export OPENAI_API_KEY=<your key> .* --base-url/);
    const viaEnv = await createCliModel(
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
    const model = await createCliModel(
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
    const model = await createCliModel(
      { provider: 'anthropic', modelId: 'claude-x', baseURL: server.url },
      { ANTHROPIC_API_KEY: 'sk-ant-cli-test', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
      { maxRetries: 0 },
    );
    expect((await model.generate(ask)).text).toBe('from the flag');
  });

  test('loads only the adapters asked for; a model of one not loaded is refused, not built', async () => {
    const openAIOnly = await loadCliModelAdapters(['ollama', 'replay']);
    expect(Object.keys(openAIOnly)).toEqual(['openai']);
    expect(Object.keys(await loadCliModelAdapters(['anthropic']))).toEqual(['anthropic']);
    expect(() =>
      createCliModelWith(
        openAIOnly,
        { provider: 'anthropic', modelId: 'claude-x' },
        { ANTHROPIC_API_KEY: 'sk-ant-cli-test' },
        {},
      ),
    ).toThrow(
      '@rlm/cli: the adapter of anthropic: is not loaded; load it with loadCliModelAdapters first',
    );
  });
});
