import { describe, expect, test } from 'vitest';
import { formatServedModelId, parseServedModelId } from './served-model-id.js';

describe('parseServedModelId', () => {
  test('a root model, its id keeping colons and slashes', () => {
    expect(parseServedModelId('rlm:anthropic:claude-sonnet-5-5')).toEqual({
      id: 'rlm:anthropic:claude-sonnet-5-5',
      root: 'anthropic:claude-sonnet-5-5',
    });
    expect(parseServedModelId('rlm:ollama:qwen2.5-coder:7b')?.root).toBe('ollama:qwen2.5-coder:7b');
    expect(parseServedModelId('rlm:openai:Qwen/Qwen3-32B')?.root).toBe('openai:Qwen/Qwen3-32B');
  });

  test('a root model and a sub-model after +', () => {
    expect(parseServedModelId('rlm:anthropic:claude-sonnet-5-5+ollama:qwen3:8b')).toEqual({
      id: 'rlm:anthropic:claude-sonnet-5-5+ollama:qwen3:8b',
      root: 'anthropic:claude-sonnet-5-5',
      sub: 'ollama:qwen3:8b',
    });
  });

  test.each([
    'rlm',
    'gpt-4.1',
    'anthropic:claude-sonnet-5-5',
    'rlm:',
    'rlm:claude',
    'rlm:Anthropic:claude',
    'rlm:anthropic:',
    'rlm:anthropic:a b',
    'rlm:anthropic:a+',
    'rlm:a:b+c:d+e:f',
    'rlm:+openai:gpt',
  ])('%j is not a served model id', (id) => {
    expect(parseServedModelId(id)).toBeUndefined();
  });

  test('formatServedModelId is its inverse', () => {
    for (const [root, sub] of [
      ['anthropic:claude-sonnet-5-5', undefined],
      ['openai:gpt-5', 'ollama:qwen3:8b'],
    ] as const) {
      const id = formatServedModelId(root, sub);
      expect(parseServedModelId(id)).toEqual(sub ? { id, root, sub } : { id, root });
    }
  });
});
