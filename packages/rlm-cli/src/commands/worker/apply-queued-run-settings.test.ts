import { describe, expect, test } from 'vitest';
import { applyQueuedRunSettings } from './apply-queued-run-settings.js';
import type { CliOptions } from '../../run-options/run-options.js';
import { parseArguments } from '../../parse-arguments.js';
import { queuedRunSettings, readQueuedRunSettings } from '../../queue/queued-run-settings.js';

function cliOf(argv: readonly string[]): CliOptions {
  const command = parseArguments(argv, {});
  if (command.kind !== 'run') throw new Error(`not a run: ${command.kind}`);
  return command.options;
}

/** The settings an eval variant with `argv` puts on the queue, as a worker reads them. */
function jobOf(argv: readonly string[], kind: 'rlm' | 'direct' = 'rlm') {
  return readQueuedRunSettings(
    JSON.parse(JSON.stringify(queuedRunSettings(cliOf(argv), kind, 1000))),
  );
}

const price = (input: number) => ({
  inputPerMillionUsd: input,
  outputPerMillionUsd: input,
  cacheReadPerMillionUsd: input,
  cacheWritePerMillionUsd: input,
});

describe('applyQueuedRunSettings', () => {
  test('each limit is the lower of the job’s and the worker’s; one the worker does not set is the job’s', () => {
    const worker = cliOf([
      '--max-cost',
      '0.5',
      '--max-iterations',
      '10',
      '--max-model-calls',
      '40',
    ]);
    const asked = jobOf([
      '--model',
      'anthropic:claude-haiku-4-5',
      '--max-cost',
      '2',
      '--max-iterations',
      '30',
      '--max-depth',
      '3',
      '--max-wall-time',
      '1m',
      '--exec-timeout',
      '500',
    ]);
    const { cli, bounded } = applyQueuedRunSettings(worker, asked);
    expect(cli.maxCostUsd).toBe(0.5);
    expect(cli.maxIterations).toBe(10);
    expect(cli.budget.maxModelCalls).toBe(40);
    expect(cli.maxDepth).toBe(3);
    expect(cli.budget.maxWallTimeMs).toBe(60_000);
    expect(cli.execTimeoutMs).toBe(500);
    expect(bounded).toEqual(['--max-cost', '--max-iterations', '--max-model-calls']);

    // The eval's defaults travel too: its 500 model calls are bounded like a flag.
    expect(applyQueuedRunSettings(worker, jobOf([])).bounded).toEqual(['--max-model-calls']);
    const modest = jobOf(['--max-cost', '0.1', '--max-iterations', '5', '--max-model-calls', '20']);
    const within = applyQueuedRunSettings(worker, modest);
    expect(within.cli.maxCostUsd).toBe(0.1);
    expect(within.cli.maxIterations).toBe(5);
    expect(within.bounded).toEqual([]);
  });

  test('the job’s models are reached at the worker’s base URL for their provider, never the job’s', () => {
    const worker = cliOf([
      '--model',
      'anthropic:claude-sonnet-4-5',
      '--base-url',
      'http://anthropic-gateway.internal',
      '--tools',
      './tools.mjs',
      '--store',
      '/data/store.sqlite',
    ]);
    const { cli } = applyQueuedRunSettings(
      worker,
      jobOf(['--model', 'anthropic:claude-haiku-4-5', '--sub-model', 'ollama:qwen3:8b']),
    );
    expect(cli.model).toEqual({
      provider: 'anthropic',
      modelId: 'claude-haiku-4-5',
      baseURL: 'http://anthropic-gateway.internal',
    });
    expect(cli.subModel).toEqual({ provider: 'ollama', modelId: 'qwen3:8b' });
    expect(cli.toolsModule).toBe('./tools.mjs');
    expect(cli.storePath).toBe('/data/store.sqlite');
  });

  test('a job prices only models the worker has no price for, and none when the worker caps the cost', () => {
    const job = readQueuedRunSettings({
      kind: 'rlm',
      model: 'openai:local-model',
      subModel: 'anthropic:claude-haiku-4-5',
      prices: { 'local-model': price(1), 'claude-haiku-4-5': price(0) },
    });
    const open = applyQueuedRunSettings(cliOf([]), job).cli;
    expect(open.prices).toEqual({ 'local-model': price(1) });
    const capped = applyQueuedRunSettings(cliOf(['--max-cost', '1']), job).cli;
    expect(capped.prices).toEqual({});
    const priced = applyQueuedRunSettings(cliOf(['--price', 'local-model=5,5']), job).cli;
    expect(priced.prices).toEqual({ 'local-model': price(5) });
  });

  test('per-call model choice: the job’s ids, within the worker’s list and prices; the error limit bounded', () => {
    const job = jobOf([
      '--sub-models',
      'claude-haiku-4-5,local-small',
      '--price',
      'local-small=1,1',
      '--max-errors',
      '5',
      '--redaction-ratio',
      'off',
    ]);
    const open = applyQueuedRunSettings(cliOf([]), job);
    expect(open.cli.subModels).toEqual(['claude-haiku-4-5', 'local-small']);
    expect(open.cli.prices).toEqual({ 'local-small': price(1) });
    expect(open.cli.maxConsecutiveErrors).toBe(5);
    expect(open.cli.redactionRatio).toBe(Number.POSITIVE_INFINITY);
    expect(open.bounded).toEqual([]);

    const listed = applyQueuedRunSettings(
      cliOf(['--sub-models', 'claude-haiku-4-5,claude-opus-4-5', '--max-errors', '2']),
      job,
    );
    expect(listed.cli.subModels).toEqual(['claude-haiku-4-5']);
    expect(listed.cli.maxConsecutiveErrors).toBe(2);
    expect(listed.bounded).toEqual(['--sub-models', '--max-errors']);

    // Under the worker's cost cap the job's price does not count: the unpriced id is left out.
    const capped = applyQueuedRunSettings(cliOf(['--max-cost', '1']), job);
    expect(capped.cli.subModels).toEqual(['claude-haiku-4-5']);
    expect(capped.bounded).toEqual(['--sub-models']);
    const none = applyQueuedRunSettings(
      cliOf(['--max-cost', '1', '--sub-models', 'claude-opus-4-5']),
      jobOf(['--sub-models', 'local-small']),
    );
    expect(none.cli.subModels).toEqual([]);

    // A job without them keeps the worker's.
    const own = applyQueuedRunSettings(
      cliOf(['--sub-models', 'claude-haiku-4-5', '--redaction-ratio', '0.5']),
      jobOf([]),
    );
    expect(own.cli.subModels).toEqual(['claude-haiku-4-5']);
    expect(own.cli.redactionRatio).toBe(0.5);
  });

  test('model call settings: the lower timeouts and retries; no streaming when either says so', () => {
    const worker = cliOf(['--request-timeout', '5000', '--max-retries', '1']);
    const { cli, bounded } = applyQueuedRunSettings(
      worker,
      jobOf([
        '--request-timeout',
        '90000',
        '--max-retries',
        '0',
        '--no-stream',
        '--sandbox',
        'quickjs',
      ]),
    );
    expect(cli.modelCalls).toEqual({
      timeoutMs: 5000,
      maxRetries: 0,
      maxRetryAfterMs: undefined,
      stream: false,
    });
    expect(cli.sandbox).toBe('quickjs');
    expect(bounded).toEqual(['--request-timeout']);
  });
});
