import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseBatchArguments } from './parse-batch-arguments.js';
import { UsageError } from '../../usage-error.js';

const env = {};

function options(argv: readonly string[]) {
  const command = parseBatchArguments(argv, env);
  if (command.kind !== 'batch') throw new Error(`expected a batch, got ${command.kind}`);
  return command.options;
}

describe('parseBatchArguments', () => {
  test('the file, batch flags in both spellings, and run flags applied to every job', () => {
    const parsed = options([
      'queries.jsonl',
      '--concurrency=8',
      '-o',
      'out/results.jsonl',
      '--max-batch-cost',
      '2.5',
      '--max-cost',
      '0.25',
      '--context',
      'corpus.txt',
      '--no-store',
    ]);
    expect(parsed).toMatchObject({
      jobsFile: 'queries.jsonl',
      concurrency: 8,
      outFile: 'out/results.jsonl',
      maxBatchCostUsd: 2.5,
      run: {
        maxCostUsd: 0.25,
        contextFile: 'corpus.txt',
        storePath: undefined,
        outFile: undefined,
      },
    });
  });

  test('defaults: 4 at once, results on stdout, no cap, 100k characters a query, 1 GiB of artifacts, 5 min without progress, contexts under the JSONL file directory', () => {
    expect(options(['jobs/queries.jsonl'])).toMatchObject({
      concurrency: 4,
      outFile: undefined,
      maxBatchCostUsd: undefined,
      maxQueryChars: 100_000,
      maxBatchArtifactBytes: 1024 ** 3,
      stallTimeoutMs: 300_000,
      artifactTtlMs: undefined,
      contextRoot: path.resolve('jobs'),
    });
    expect(options(['jobs/queries.jsonl', '--context-root', 'data']).contextRoot).toBe('data');
  });

  test('durability flags: --stall-timeout with --queue, --artifact-ttl with a Redis store (7 days by default)', () => {
    expect(
      options([
        'q.jsonl',
        '--queue',
        'redis://h:1',
        '--stall-timeout',
        '90s',
        '--max-query-chars=500',
        '--max-batch-artifact-bytes',
        '64M',
      ]),
    ).toMatchObject({
      stallTimeoutMs: 90_000,
      maxQueryChars: 500,
      maxBatchArtifactBytes: 64 * 1024 ** 2,
      artifactTtlMs: undefined,
    });
    expect(options(['q.jsonl', '--store', 'redis://h:1']).artifactTtlMs).toBe(7 * 86_400_000);
    expect(
      options(['q.jsonl', '--store', 'redis://h:1', '--artifact-ttl', '2h']).artifactTtlMs,
    ).toBe(7_200_000);
  });

  test('--help', () => {
    expect(parseBatchArguments(['--help'], env)).toEqual({ kind: 'help' });
  });

  test.each([
    [[], /needs a JSONL file/],
    [['q.jsonl', '--concurrency', '0'], /--concurrency needs a positive whole number/],
    [['q.jsonl', '--concurrency', '2.5'], /--concurrency needs a positive whole number/],
    [['q.jsonl', '--concurrency'], /--concurrency needs a value/],
    [
      ['q.jsonl', '--queue', 'redis://localhost:6379', '--context-root', 'data'],
      /rlm batch --queue reads no context: the workers do, each under its own --context-root; pass it to rlm worker/,
    ],
    [['q.jsonl', '--out', '--quiet'], /--out needs a value/],
    [['q.jsonl', '--max-batch-cost', '-1'], /--max-batch-cost needs a value/],
    [['q.jsonl', '--max-batch-cost', 'lots'], /--max-batch-cost needs a positive number/],
    [
      ['q.jsonl', '--max-batch-cost', '5', '--model', 'anthropic:unpriced-model'],
      /--max-batch-cost needs a price for unpriced-model/,
    ],
    [['q.jsonl', '--json'], /rlm batch takes no --json/],
    [['q.jsonl', '--resume'], /rlm batch takes no --resume/],
    [['q.jsonl', '--bogus'], /unknown option --bogus/],
    [['q.jsonl', '--stall-timeout', '1m'], /--stall-timeout applies to --queue batches/],
    [['q.jsonl', '--artifact-ttl', '1d'], /--artifact-ttl applies to a Redis store/],
    [['q.jsonl', '--queue', 'redis://h:1', '--artifact-ttl', '1d'], /pass it to rlm worker/],
    [['q.jsonl', '--max-query-chars', '0'], /--max-query-chars needs a positive whole number/],
    [
      ['q.jsonl', '--max-batch-artifact-bytes', 'lots'],
      /--max-batch-artifact-bytes needs a size in bytes/,
    ],
  ])('%j is a usage error', (argv, message) => {
    let caught: unknown;
    try {
      parseBatchArguments(argv, env);
    } catch (error) {
      caught = error;
    }
    expect(UsageError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toMatch(message);
  });
});
