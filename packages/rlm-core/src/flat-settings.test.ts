import { afterEach, describe, expect, test, vi } from 'vitest';
import { createRLM } from './create-rlm.js';
import { ConfigurationError } from './errors/configuration-error.js';
import { createScriptedModel, createScriptedSandbox } from './testing/index.js';

// The grouped settings and the deprecated flat names they replace.

const base = () => ({
  model: createScriptedModel(['FINAL(x)']),
  sandbox: createScriptedSandbox({}),
});

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

  test('llm and subLlm are deprecated names of model and subModel', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const sandbox = createScriptedSandbox({});
    const rlm = createRLM({ llm: createScriptedModel(['FINAL(old name)']), sandbox });
    await expect(rlm.query('q')).resolves.toMatchObject({ answer: 'old name' });
    const root = createScriptedModel(['FINAL(x)']);
    createRLM({ model: root, llm: root, subLlm: root, sandbox });
    const messages = warn.mock.calls.map(([message]) => String(message));
    expect(messages.filter((m) => m.includes('createRLM({ llm })'))).toHaveLength(1);
    expect(messages.some((m) => m.includes('createRLM({ subLlm }) is deprecated'))).toBe(true);
    expect(messages.find((m) => m.includes('createRLM({ llm })'))).toContain('use model');
    expect(() =>
      createRLM({ model: root, llm: createScriptedModel(['FINAL(y)']), sandbox }),
    ).toThrow('createRLM got both llm and model with different values; keep only model');
    expect(() => createRLM({ sandbox } as never)).toThrow(
      '@rlm/core: createRLM needs a model; pass createRLM({ model, sandbox })',
    );
  });

  test('limits: the group and its flat names act alike, and errors name limits.<name>', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const stalling = (settings: object) =>
      createRLM({
        ...settings,
        model: createScriptedModel(['', 'FINAL(done)']),
        sandbox: createScriptedSandbox({}),
      }).query('q');
    // One empty response allowed in a row: the second goes to the final prompt.
    const grouped = await stalling({ limits: { stallLimit: 1, maxIterations: 9 } });
    expect(warn).not.toHaveBeenCalled();
    const flat = await stalling({ stallLimit: 1, maxIterations: 9 });
    expect(flat.iterations).toBe(grouped.iterations);
    const unbounded = await stalling({ limits: { maxIterations: 9 } });
    expect(unbounded.iterations).not.toBe(grouped.iterations);
    await stalling({ stallLimit: 1 });
    const messages = warn.mock.calls
      .filter(([, options]) => (options as { code?: string }).code === 'RLM_DEP_FLAT_SETTINGS')
      .map(([message]) => String(message));
    expect(messages.filter((m) => m.includes('createRLM({ stallLimit })'))).toEqual([
      '@rlm/core: createRLM({ stallLimit }) is deprecated and will be removed in the next minor version; use limits.stallLimit',
    ]);
    expect(() => createRLM({ ...base(), limits: { maxDepth: 0 } })).toThrow(
      '@rlm/core: limits.maxDepth must be a positive integer, got 0',
    );
    expect(() => createRLM({ ...base(), historyBudgetChars: -1 })).toThrow(
      'limits.historyBudgetChars must be a positive integer',
    );
  });

  test('limits.sandbox and limits.execTimeoutMs reach the sandbox as sandboxLimits and execTimeoutMs did', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const limitsGiven = async (settings: object) => {
      let given: unknown;
      const scripted = createScriptedSandbox({});
      await createRLM({
        ...settings,
        model: createScriptedModel(['FINAL(x)']),
        sandbox: (options) => {
          given = options.limits;
          return scripted(options);
        },
      }).query('q');
      return given;
    };
    const grouped = await limitsGiven({ limits: { sandbox: { memoryMb: 64 }, execTimeoutMs: 7 } });
    expect(grouped).toEqual({ memoryMb: 64, timeoutMs: 7 });
    expect(warn).not.toHaveBeenCalled();
    expect(await limitsGiven({ sandboxLimits: { memoryMb: 64 }, execTimeoutMs: 7 })).toEqual(
      grouped,
    );
    const messages = warn.mock.calls.map(([message]) => String(message));
    expect(
      messages.some(
        (m) => m.includes('createRLM({ sandboxLimits })') && m.endsWith('use limits.sandbox'),
      ),
    ).toBe(true);
  });

  test('a flat limit and its limits path set to different values is a ConfigurationError', () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const both = () => createRLM({ ...base(), execTimeoutMs: 5, limits: { execTimeoutMs: 6 } });
    expect(both).toThrow(ConfigurationError);
    expect(both).toThrow(
      'createRLM got both execTimeoutMs and limits.execTimeoutMs with different values; keep only limits.execTimeoutMs',
    );
    expect(() =>
      createRLM({
        ...base(),
        sandboxLimits: { memoryMb: 64 },
        limits: { sandbox: { memoryMb: 64 } },
      }),
    ).toThrow('keep only limits.sandbox');
    expect(() => createRLM({ ...base(), maxDepth: 3, limits: { maxDepth: 3 } })).not.toThrow();
  });
});
