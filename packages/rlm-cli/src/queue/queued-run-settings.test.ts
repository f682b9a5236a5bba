import { describe, expect, test } from 'vitest';
import type { CliOptions } from '../run-options/run-options.js';
import { parseArguments } from '../parse-arguments.js';
import { QueuedRunSettingsError } from './queued-run-settings-error.js';
import { queuedRunSettings, readQueuedRunSettings } from './queued-run-settings.js';

function cliOf(argv: readonly string[]): CliOptions {
  const command = parseArguments(argv, {});
  if (command.kind !== 'run') throw new Error(`not a run: ${command.kind}`);
  return command.options;
}

/** The message of the error `readQueuedRunSettings` throws for `value`. */
function refusal(value: unknown): string {
  try {
    readQueuedRunSettings(value);
  } catch (error) {
    expect(QueuedRunSettingsError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(value)}`);
}

const rlm = { kind: 'rlm', model: 'anthropic:claude-haiku-4-5' };

describe('queued run settings', () => {
  test('a variant’s flags travel as allow-listed JSON, without base URLs, paths or tools, and read back the same', () => {
    const cli = cliOf([
      '--model',
      'openai:local-model',
      '--base-url',
      'http://127.0.0.1:8000/v1',
      '--sub-model',
      'anthropic:claude-haiku-4-5',
      '--max-iterations',
      '30',
      '--max-depth',
      '2',
      '--max-cost',
      '0.5',
      '--price',
      'local-model=1,2',
      '--price',
      'unrelated=3,4',
      '--max-wall-time',
      '2m',
      '--no-stream',
      '--sandbox',
      'quickjs',
      '--tools',
      './tools.mjs',
      '--store',
      '/tmp/store.sqlite',
      '--context',
      'corpus.txt',
    ]);
    const settings = queuedRunSettings(cli, 'rlm');
    expect(settings).toEqual({
      kind: 'rlm',
      model: 'openai:local-model',
      subModel: 'anthropic:claude-haiku-4-5',
      maxDepth: 2,
      maxIterations: 30,
      maxCostUsd: 0.5,
      maxModelCalls: 500,
      maxWallTimeMs: 120_000,
      stream: false,
      sandbox: 'quickjs',
      prices: {
        'local-model': {
          inputPerMillionUsd: 1,
          outputPerMillionUsd: 2,
          cacheReadPerMillionUsd: 1,
          cacheWritePerMillionUsd: 1,
        },
      },
    });
    const text = JSON.stringify(settings);
    for (const kept of ['127.0.0.1', 'tools.mjs', 'store.sqlite', 'corpus.txt']) {
      expect(text).not.toContain(kept);
    }
    expect(readQueuedRunSettings(JSON.parse(text))).toEqual(settings);
  });

  test('per-call model choice, the error limit and the redaction ratio travel too', () => {
    const cli = cliOf([
      '--model',
      'anthropic:claude-sonnet-4-5',
      '--sub-models',
      'claude-haiku-4-5,local-small',
      '--price',
      'local-small=1,2',
      '--max-errors',
      '3',
      '--redaction-ratio',
      'off',
    ]);
    const settings = queuedRunSettings(cli, 'rlm');
    expect(settings).toMatchObject({
      subModels: ['claude-haiku-4-5', 'local-small'],
      maxConsecutiveErrors: 3,
      redactionRatio: 'off',
      prices: { 'local-small': { inputPerMillionUsd: 1, outputPerMillionUsd: 2 } },
    });
    expect(readQueuedRunSettings(JSON.parse(JSON.stringify(settings)))).toEqual(settings);
    const ratio = queuedRunSettings(cliOf(['--redaction-ratio', '0.5']), 'rlm');
    expect(ratio.redactionRatio).toBe(0.5);
    expect(readQueuedRunSettings(JSON.parse(JSON.stringify(ratio))).redactionRatio).toBe(0.5);
  });

  test('the direct baseline carries its model, window and call settings only', () => {
    const cli = cliOf(['--model', 'anthropic:claude-haiku-4-5', '--max-iterations', '30']);
    const settings = queuedRunSettings(cli, 'direct', 4000);
    expect(settings).toEqual({
      kind: 'direct',
      model: 'anthropic:claude-haiku-4-5',
      windowTokens: 4000,
    });
    expect(readQueuedRunSettings(JSON.parse(JSON.stringify(settings)))).toEqual(settings);
    expect(refusal({ kind: 'direct', model: 'anthropic:x' })).toMatch(/needs windowTokens/);
  });

  test('hostile values are refused, naming the setting', () => {
    for (const value of [null, undefined, 'rlm', 42, [], true]) {
      expect(refusal(value)).toMatch(/^the job's run settings are refused: they are not an object/);
    }
    expect(refusal({ model: 'anthropic:x' })).toMatch(/kind must be "rlm" or "direct"/);
    expect(refusal({ kind: 'shell', model: 'anthropic:x' })).toMatch(/kind must be/);
    for (const key of ['toolsModule', 'storePath', 'contextFile', 'baseURL', 'env']) {
      expect(refusal({ ...rlm, [key]: '/etc/passwd' })).toContain(
        `"${key}" is not a setting a job may carry`,
      );
    }
    // A key JSON.parse makes an own property: refused like any other, never merged.
    expect(refusal(JSON.parse('{"kind":"rlm","model":"anthropic:x","__proto__":{"a":1}}'))).toMatch(
      /"__proto__" is not a setting/,
    );
    for (const model of [
      undefined,
      7,
      'claude-haiku-4-5',
      'evil:model',
      'http://attacker.example/v1',
      'anthropic:',
      'anthropic:a b',
      'anthropic:x\nInjected: yes',
      `anthropic:${'x'.repeat(300)}`,
    ]) {
      expect(refusal({ kind: 'rlm', model })).toMatch(/model must be "anthropic:<id>"/);
    }
    expect(refusal({ ...rlm, subModel: 'file:///etc/passwd' })).toMatch(/subModel must be/);
    for (const [key, value] of [
      ['maxIterations', -1],
      ['maxIterations', 0],
      ['maxIterations', 1.5],
      ['maxIterations', '10'],
      ['maxIterations', null],
      ['maxModelCalls', 1e300],
      ['maxWallTimeMs', { valueOf: 5 }],
      ['maxRetries', -1],
      ['windowTokens', 0],
    ] as const) {
      expect(refusal({ ...rlm, [key]: value })).toContain(`${key} must be a whole number`);
    }
    for (const value of [0, -1, 2.5, '3']) {
      expect(refusal({ ...rlm, maxConsecutiveErrors: value })).toContain(
        'maxConsecutiveErrors must be a whole number of at least 1',
      );
    }
    for (const value of [0, -0.5, 'none', null, Number.NaN, [0.5]]) {
      expect(refusal({ ...rlm, redactionRatio: value })).toContain(
        'redactionRatio must be a number above 0 or "off"',
      );
    }
    for (const value of [
      [],
      'claude-haiku-4-5',
      ['a b'],
      ['a,b'],
      [''],
      [7],
      ['x\nInjected: yes'],
      [`${'x'.repeat(300)}`],
      Array.from({ length: 51 }, (_, index) => `m${index}`),
    ]) {
      expect(refusal({ ...rlm, subModels: value })).toContain(
        'subModels must be a list of 1 to 50 model ids without spaces',
      );
    }
    expect(refusal({ ...rlm, maxCostUsd: 0 })).toContain('maxCostUsd must be a positive number');
    expect(refusal({ ...rlm, maxCostUsd: -5 })).toContain('maxCostUsd must be a positive number');
    expect(refusal({ ...rlm, stream: true })).toMatch(/stream may only be false/);
    expect(refusal({ ...rlm, sandbox: 'none' })).toMatch(/sandbox must be "ses" or "quickjs"/);
    const price = {
      inputPerMillionUsd: 1,
      outputPerMillionUsd: 1,
      cacheReadPerMillionUsd: 1,
      cacheWritePerMillionUsd: 1,
    };
    expect(refusal({ ...rlm, prices: { 'claude-opus-4-1': price } })).toMatch(
      /prices may only price the job's own models/,
    );
    expect(refusal({ ...rlm, prices: { 'claude-haiku-4-5': { ...price, extra: 1 } } })).toMatch(
      /the price of claude-haiku-4-5 must be/,
    );
    expect(
      refusal({ ...rlm, prices: { 'claude-haiku-4-5': { ...price, inputPerMillionUsd: -1 } } }),
    ).toMatch(/the price of claude-haiku-4-5 must be/);
    expect(refusal({ ...rlm, prices: [price] })).toMatch(/prices must be an object/);
    // Every refusal is one line that says what to do.
    expect(refusal({ ...rlm, maxIterations: 'x\ny' })).not.toContain('\n');
    expect(refusal({ ...rlm, maxIterations: -1 })).toMatch(
      /; run the same rlm version for rlm eval --queue and rlm worker$/,
    );
  });
});
