import type { GenerateResult, LanguageModel } from '@rlm/core';
import { expect, test } from 'vitest';
import { aroundModelCalls } from './around-model-calls.js';

/** A model answering with its own id, whose `supportsTools` can change after it is wrapped. */
function echoModel(modelId: string): LanguageModel & { supportsTools: boolean } {
  return {
    modelId,
    supportsTools: false,
    withModel: (other) => echoModel(other),
    generate: async () => ({ text: modelId }) as GenerateResult,
  };
}

test('calls go through around, also those of a model withModel makes; id and tool support read through', async () => {
  const seen: string[] = [];
  const inner = echoModel('root');
  const model = aroundModelCalls(inner, (generate) => async (request, options) => {
    const result = await generate(request, options);
    seen.push(result.text);
    return { ...result, text: `[${result.text}]` };
  });
  expect((await model.generate({ system: '', messages: [] })).text).toBe('[root]');
  const other = model.withModel?.('other') as LanguageModel;
  expect(other.modelId).toBe('other');
  expect((await other.generate({ system: '', messages: [] })).text).toBe('[other]');
  expect(seen).toEqual(['root', 'other']);
  inner.supportsTools = true;
  expect(model.supportsTools).toBe(true);
  expect(model.modelId).toBe('root');
});

test('a model without withModel stays without it', () => {
  const { withModel: _dropped, ...plain } = echoModel('plain');
  expect(aroundModelCalls(plain, (generate) => generate).withModel).toBeUndefined();
});
