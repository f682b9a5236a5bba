import { describe, expect, test } from 'vitest';
import { UsageError } from '../../usage-error.js';
import { parseWorkerArguments, type WorkerOptions } from './parse-worker-arguments.js';

function workerOptions(argv: readonly string[]): WorkerOptions {
  const command = parseWorkerArguments(argv, {});
  if (command.kind !== 'worker') throw new Error(`expected a worker, got ${command.kind}`);
  return command.options;
}

function usageMessage(argv: readonly string[]): string {
  try {
    parseWorkerArguments(argv, {});
  } catch (error) {
    if (UsageError.isInstance(error)) return error.message;
    throw error;
  }
  throw new Error('expected a UsageError');
}

describe('parseWorkerArguments', () => {
  test('keeps the defaults and passes the run flags on', () => {
    const options = workerOptions(['--queue', 'redis://127.0.0.1:6390', '--max-iterations', '4']);
    expect(options).toMatchObject({
      queue: 'redis://127.0.0.1:6390',
      connection: { host: '127.0.0.1', port: 6390 },
      concurrency: 2,
      lockDurationMs: 30_000,
      artifactTtlMs: 7 * 86_400_000,
      contextRoot: process.cwd(),
    });
    expect(options.cli.maxIterations).toBe(4);
  });

  test('reads its own flags, inline or not', () => {
    const options = workerOptions([
      '--queue=redis://h:1',
      '--concurrency',
      '5',
      '--lock-duration=2m',
      '--context-root',
      '/data',
    ]);
    expect(options).toMatchObject({
      concurrency: 5,
      lockDurationMs: 120_000,
      contextRoot: '/data',
    });
  });

  test('--help wins', () => {
    expect(parseWorkerArguments(['--queue', 'redis://h:1', '--help'], {})).toEqual({
      kind: 'help',
    });
  });

  test.each([
    [['--queue', 'redis://h:1', 'a question'], 'rlm worker takes no query'],
    [[], 'rlm worker needs --queue'],
    [['--queue'], '--queue needs a value'],
    [['--queue', 'redis://h:1', '--lock-duration', '500ms'], '--lock-duration needs at least 1s'],
    [['--queue', 'redis://h:1', '--concurrency', '0'], '--concurrency'],
  ])('refuses %j with one line', (argv, start) => {
    const message = usageMessage(argv);
    expect(message.startsWith(start)).toBe(true);
    expect(message).not.toContain('\n');
  });
});
