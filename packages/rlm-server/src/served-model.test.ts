import { createScriptedModel } from '@rlm/core/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ServerSettingsError } from './errors/server-settings-error.js';
import { createRlmService } from './rlm-service.js';
import { withCurrentNames } from './served-model.js';

/** The served models' names, `model` and `subModel`, and the deprecated `llm` and `subLlm`. */

const deprecationWarnings = (warn: { mock: { calls: unknown[][] } }) =>
  warn.mock.calls.filter(
    ([, options]) => (options as { code?: string }).code === 'RLM_DEP_SERVED_MODEL_NAMES',
  );

describe('served model names', () => {
  afterEach(() => vi.restoreAllMocks());

  test('model and subModel are taken as they are, with no warning', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const model = createScriptedModel([]);
    const subModel = createScriptedModel([]);
    expect(withCurrentNames({ model, subModel }, 'rlm:x:y')).toEqual({ model, subModel });
    expect(withCurrentNames({ model }, 'rlm:x:y')).toEqual({ model });
    expect(warn).not.toHaveBeenCalled();
  });

  test('llm and subLlm still serve, under the new names, with one warning per name per process', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const service = await createRlmService({
      models: {
        'rlm:x:old': {
          llm: createScriptedModel(['FINAL(old names)']),
          subLlm: createScriptedModel([]),
        },
        'rlm:x:again': { llm: createScriptedModel([]) },
      },
      rlm: { sandbox: createSesSandbox() },
    });
    try {
      const run = await service.start({
        protocol: 'openai',
        requestId: 'chatcmpl-old',
        startedAt: Date.now(),
        model: 'rlm:x:old',
        query: 'What?',
        limits: {},
        signal: new AbortController().signal,
      });
      expect((await run.done).answer).toBe('old names');
    } finally {
      await service.close();
    }
    const warnings = deprecationWarnings(warn).map(([message]) => String(message));
    expect(warnings).toEqual([
      "@rlm/server: a served model's llm is deprecated and will be removed in the next minor version; name it model, as createRLM does",
      "@rlm/server: a served model's subLlm is deprecated and will be removed in the next minor version; name it subModel, as createRLM does",
    ]);
  });

  test('no root model, or a name and its deprecated one naming different models, is refused', () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const one = createScriptedModel([]);
    const other = createScriptedModel([]);
    expect(() => withCurrentNames({ subModel: one }, 'rlm:x:y')).toThrow(
      new ServerSettingsError(
        '@rlm/server: the served model "rlm:x:y" has no root model; give it { model }',
      ),
    );
    expect(() => withCurrentNames({ model: one, llm: other }, 'rlm:x:y')).toThrow(
      'gives both model and llm with different models; keep only model',
    );
    expect(() => withCurrentNames({ model: one, subModel: one, subLlm: other }, 'rlm:x:y')).toThrow(
      'gives both subModel and subLlm with different models; keep only subModel',
    );
    // The same model under both names is no conflict.
    expect(withCurrentNames({ model: one, llm: one }, 'rlm:x:y')).toEqual({ model: one });
  });
});
