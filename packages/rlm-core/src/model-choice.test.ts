import { describe, expect, test } from 'vitest';
import { defaultModelPrices } from './cost/model-prices.js';
import type { LanguageModel } from './language-model.js';
import { ModelChoice, modelChoiceProblem, modelIdFor, providerOf } from './model-choice.js';

function model(modelId: string, made: string[] = []): LanguageModel {
  return {
    modelId,
    supportsTools: false,
    generate: () => Promise.reject(new Error('not called')),
    withModel: (id) => {
      made.push(id);
      return model(`${providerOf(modelId)}:${id}`, made);
    },
  };
}

describe('modelIdFor and providerOf', () => {
  test('the base provider prefix goes; anything else is the id, colons included', () => {
    const base = model('ollama:qwen3:8b');
    expect(providerOf(base.modelId)).toBe('ollama');
    expect(modelIdFor('ollama:qwen3:14b', base)).toBe('qwen3:14b');
    expect(modelIdFor('qwen3:14b', base)).toBe('qwen3:14b');
    expect(modelIdFor('claude-haiku-4-5', model('anthropic:claude-sonnet-4-5'))).toBe(
      'claude-haiku-4-5',
    );
    expect(providerOf('scripted')).toBe('');
  });
});

describe('modelChoiceProblem', () => {
  const open = { allowed: undefined, prices: defaultModelPrices, costBounded: false };

  test('any id without a list; only listed ids with one, named in the refusal', () => {
    expect(modelChoiceProblem('anything', 'anthropic', open)).toBeUndefined();
    const listed = { ...open, allowed: ['claude-haiku-4-5', 'claude-sonnet-4-5'] };
    expect(modelChoiceProblem('claude-haiku-4-5', 'anthropic', listed)).toBeUndefined();
    expect(modelChoiceProblem('claude-opus-4-5', 'anthropic', listed)).toBe(
      'model "claude-opus-4-5" is not one this run allows; choose one of: claude-haiku-4-5, claude-sonnet-4-5',
    );
    // An empty list (a queue worker allowing none of a job's ids): no choice, and no menu.
    const none = { ...open, allowed: [] };
    expect(modelChoiceProblem('claude-haiku-4-5', 'anthropic', none)).toBe(
      'this run allows no other model; leave out { model }',
    );
    const base = model('anthropic:claude-sonnet-4-5');
    expect(new ModelChoice(none).menu(base, base)).toBeUndefined();
    expect(new ModelChoice(open).menu(base, base)).toBeDefined();
  });

  test('under a cost budget an unpriced model is refused, naming the priced ones allowed', () => {
    const bounded = { ...open, costBounded: true };
    expect(modelChoiceProblem('claude-haiku-4-5', 'anthropic', bounded)).toBeUndefined();
    expect(modelChoiceProblem('my-finetune', 'openai', bounded)).toMatch(
      /^model "my-finetune" has no price, and this run has a cost budget; choose a model with a known price$/,
    );
    expect(
      modelChoiceProblem('my-finetune', 'openai', {
        ...bounded,
        allowed: ['my-finetune', 'gpt-5-mini'],
      }),
    ).toMatch(/known price: gpt-5-mini$/);
  });
});

describe('ModelChoice', () => {
  test('makes each chosen model once, from the base; the base itself for its own id', () => {
    const made: string[] = [];
    const base = model('anthropic:claude-sonnet-4-5', made);
    const choice = new ModelChoice({
      allowed: undefined,
      prices: defaultModelPrices,
      costBounded: false,
    });
    expect(choice.resolve(undefined, base, 'llm_query(prompt, options)')).toBe(base);
    expect(choice.resolve('anthropic:claude-sonnet-4-5', base, 'u')).toBe(base);
    const haiku = choice.resolve('claude-haiku-4-5', base, 'u');
    expect(haiku.modelId).toBe('anthropic:claude-haiku-4-5');
    expect(choice.resolve('anthropic:claude-haiku-4-5', base, 'u')).toBe(haiku);
    expect(made).toEqual(['claude-haiku-4-5']);
  });

  test('refusals are errors model code can read: bad ids, ids not allowed, adapters that cannot switch', () => {
    const choice = new ModelChoice({ allowed: ['b'], prices: {}, costBounded: false });
    const base = model('p:a');
    expect(() => choice.resolve(42, base, 'llm_query(prompt, options)')).toThrow(
      'llm_query(prompt, options) needs the model as a non-empty model id string; got a number',
    );
    expect(() => choice.resolve(' ', base, 'u')).toThrow(/got a string of only whitespace$/);
    expect(() => choice.resolve('c', base, 'u')).toThrow(
      'u: model "c" is not one this run allows; choose one of: b',
    );
    const fixed: LanguageModel = { ...base, withModel: undefined };
    expect(() => choice.resolve('b', fixed, 'u')).toThrow(
      "u: this run's model adapter (p:a) cannot switch models; leave out { model }",
    );
  });
});
