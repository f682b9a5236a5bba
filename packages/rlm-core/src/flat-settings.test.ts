import { afterEach, describe, expect, test, vi } from 'vitest';
import { createRLM } from './create-rlm.js';
import { ConfigurationError } from './errors/configuration-error.js';
import { createScriptedModel, createScriptedSandbox } from './testing/index.js';

// The grouped settings and the deprecated flat names they replace.

const base = () => ({ llm: createScriptedModel(['FINAL(x)']), sandbox: createScriptedSandbox({}) });

describe('grouped settings and the deprecated flat names', () => {
  afterEach(() => vi.restoreAllMocks());

  test('a flat name works, with one RLM_DEP_FLAT_SETTINGS warning per name per process', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    createRLM({ ...base(), checkpointMaxLagMs: 5 });
    createRLM({ ...base(), checkpointMaxLagMs: 5 });
    const warnings = warn.mock.calls.filter(
      ([, options]) => String((options as { code?: string }).code) === 'RLM_DEP_FLAT_SETTINGS',
    );
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.[0])).toContain('use artifacts.checkpoints.maxLagMs');
  });

  test('the grouped form warns about nothing and checks its values by their grouped path', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    createRLM({
      ...base(),
      session: { persistent: true, memory: { maxContexts: 2 } },
      hostTools: [],
      artifacts: { checkpoints: { maxLagMs: 0 }, quotas: { artifactCount: 3 } } as never,
    });
    expect(warn).not.toHaveBeenCalled();
    expect(() =>
      createRLM({ ...base(), artifacts: { quotas: { artifactCount: 0 } } as never }),
    ).toThrow('artifacts.quotas.artifactCount must be a positive integer, got 0');
  });

  test('a flat name and its grouped path set to different values is a ConfigurationError', () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const both = () => createRLM({ ...base(), persistent: false, session: { persistent: true } });
    expect(both).toThrow(ConfigurationError);
    expect(both).toThrow(
      'createRLM got both persistent and session.persistent with different values; keep only session.persistent',
    );
    // The same value twice is no conflict.
    const tools: never[] = [];
    expect(() => createRLM({ ...base(), tools, hostTools: tools })).not.toThrow();
  });
});
