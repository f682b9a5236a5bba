import path from 'node:path';
import { defaultModelPrices, findModelPrice } from '@rlm/core';
import { defaultArtifactTtlMs, isRedisUrl } from '../../store/open-store.js';
import type { CliOptions } from '../../run-options/run-options.js';
import { parseRunOptions } from '../../run-options/parse-run-options.js';
import {
  parseByteCount,
  parseDuration,
  parsePositiveInteger,
} from '../../run-options/parse-flag-values.js';
import { defaultMaxQueryChars } from '../../jobs/parse-batch-jobs.js';
import { parseQueueUrl } from '../../queue/parse-queue-url.js';
import { UsageError } from '../../usage-error.js';

/** `rlm batch`'s command line, validated. */
export type BatchCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'batch'; readonly options: BatchOptions };

/** What `rlm batch` runs, and how. */
export interface BatchOptions {
  /** The JSONL file of jobs. */
  readonly jobsFile: string;
  /** `--concurrency`: jobs run at once in this process (default {@link defaultBatchConcurrency}). */
  readonly concurrency: number;
  /**
   * `--queue`: a Redis URL; the jobs go on its BullMQ queue for `rlm worker` processes to run.
   * `undefined` runs them in this process.
   */
  readonly queue: string | undefined;
  /** `--out`: the results file (JSON lines, appended); `undefined` prints them on stdout. */
  readonly outFile: string | undefined;
  /**
   * `--context-root`: the directory the jobs' own context files must lie in (symbolic links
   * resolved); default the JSONL file's directory. Not with `--queue`: workers have their own.
   */
  readonly contextRoot: string;
  /**
   * `--max-batch-cost`: US dollars for the whole batch. Once spent, no job starts; running ones
   * finish. `undefined` for no cap.
   */
  readonly maxBatchCostUsd: number | undefined;
  /** `--max-query-chars`: a longer query is refused for its line (default 100,000). */
  readonly maxQueryChars: number;
  /**
   * `--max-batch-artifact-bytes`: what the batch's jobs may store with `store()` together, on
   * top of each job's `--max-artifact-bytes` (default {@link defaultMaxBatchArtifactBytes}).
   */
  readonly maxBatchArtifactBytes: number;
  /**
   * `--stall-timeout` (with `--queue`): how long no worker may make progress on the batch before
   * it stops waiting and says why, in milliseconds (default {@link defaultStallTimeoutMs}).
   */
  readonly stallTimeoutMs: number;
  /**
   * `--artifact-ttl` (a Redis `--store`, without `--queue`): every key the jobs write expires
   * this long after its last write, in milliseconds (default {@link defaultArtifactTtlMs});
   * `undefined` for a SQLite store, whose entries never expire.
   */
  readonly artifactTtlMs: number | undefined;
  /**
   * Every run flag, applied to each job: model, budgets (`--max-cost` is per job), batch-wide
   * `--context`/`--context-dir`, store, tools, `--quiet`.
   */
  readonly run: CliOptions;
}

/** Jobs run at once unless `--concurrency` says otherwise. */
export const defaultBatchConcurrency = 4;

/** What a batch's jobs may store together unless `--max-batch-artifact-bytes` says otherwise. */
export const defaultMaxBatchArtifactBytes = 1024 ** 3;

/** How long a queued batch waits for progress unless `--stall-timeout` says otherwise. */
export const defaultStallTimeoutMs = 5 * 60_000;

/** The flags only `rlm batch` has, and `--out`, which means the results file there. */
const batchFlags = new Map([
  ['--concurrency', 'concurrency'],
  ['--context-root', 'context-root'],
  ['--max-batch-cost', 'max-batch-cost'],
  ['--out', 'out'],
  ['--queue', 'queue'],
  ['--max-query-chars', 'max-query-chars'],
  ['--max-batch-artifact-bytes', 'max-batch-artifact-bytes'],
  ['--stall-timeout', 'stall-timeout'],
  ['--artifact-ttl', 'artifact-ttl'],
  ['-o', 'out'],
] as const);

type BatchFlagName = typeof batchFlags extends Map<string, infer Name> ? Name : never;

/** Run flags that mean nothing for a batch. */
const refusedFlags: ReadonlyMap<string, string> = new Map([
  ['--json', 'results are always JSON lines'],
  ['--resume', 'a rerun skips the ids already answered in --out'],
  ['--trace', 'traces are kept in the store: list them with rlm runs'],
]);

/**
 * Parses the words after `rlm batch`: one JSONL file, `--concurrency`, `--max-batch-cost`,
 * `--out`, and every run flag (parsed as for a single query). Throws a {@link UsageError} with
 * one line for anything malformed.
 */
export function parseBatchArguments(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): BatchCommand {
  const own: Partial<Record<BatchFlagName, string>> = {};
  const rest: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index]!;
    if (word === '--') {
      rest.push(...argv.slice(index));
      break;
    }
    const [flag, inline] = splitFlag(word);
    const refused = refusedFlags.get(flag);
    if (refused !== undefined) throw new UsageError(`rlm batch takes no ${flag}: ${refused}`);
    const name = batchFlags.get(flag as never);
    if (name === undefined) {
      rest.push(word);
      continue;
    }
    const value = inline ?? argv[++index];
    if (value === undefined || (inline === undefined && value.startsWith('-'))) {
      throw new UsageError(`${flag} needs a value`);
    }
    own[name] = value;
  }
  const command = parseRunOptions(rest, env);
  if (command.kind === 'help') return { kind: 'help' };
  if (command.kind !== 'run') {
    throw new UsageError('rlm batch runs queries only; see rlm batch --help');
  }
  const run = command.options;
  if (run.query === undefined) {
    throw new UsageError(
      'rlm batch needs a JSONL file of jobs, one {"id": ..., "query": "..."} a line: rlm batch queries.jsonl',
    );
  }
  const concurrency =
    own.concurrency === undefined
      ? defaultBatchConcurrency
      : parsePositiveInteger(own.concurrency, '--concurrency');
  const maxBatchCostUsd =
    own['max-batch-cost'] === undefined ? undefined : parseDollars(own['max-batch-cost']);
  if (maxBatchCostUsd !== undefined) {
    for (const spec of run.subModel ? [run.model, run.subModel] : [run.model]) {
      if (!findModelPrice({ ...defaultModelPrices, ...run.prices }, spec.modelId)) {
        throw new UsageError(
          `--max-batch-cost needs a price for ${spec.modelId}, which has none built in; add --price ${spec.modelId}=<input>,<output> (US dollars per million tokens)`,
        );
      }
    }
  }
  // Checked here, so that a malformed URL is a usage error before anything is read.
  if (own.queue !== undefined) parseQueueUrl(own.queue);
  if (own.queue !== undefined && own['context-root'] !== undefined) {
    throw new UsageError(
      'rlm batch --queue reads no context: the workers do, each under its own --context-root; pass it to rlm worker',
    );
  }
  if (own['stall-timeout'] !== undefined && own.queue === undefined) {
    throw new UsageError(
      '--stall-timeout applies to --queue batches (jobs on this machine have --max-wall-time)',
    );
  }
  const redisStore = run.storePath !== undefined && isRedisUrl(run.storePath);
  if (own['artifact-ttl'] !== undefined && (own.queue !== undefined || !redisStore)) {
    throw new UsageError(
      own.queue !== undefined
        ? "--artifact-ttl is the workers' flag with --queue: pass it to rlm worker"
        : '--artifact-ttl applies to a Redis store (--store redis://...); a SQLite store keeps everything',
    );
  }
  return {
    kind: 'batch',
    options: {
      jobsFile: run.query,
      concurrency,
      queue: own.queue,
      outFile: own.out,
      contextRoot: own['context-root'] ?? path.dirname(path.resolve(run.query)),
      maxBatchCostUsd,
      maxQueryChars:
        own['max-query-chars'] === undefined
          ? defaultMaxQueryChars
          : parsePositiveInteger(own['max-query-chars'], '--max-query-chars'),
      maxBatchArtifactBytes:
        own['max-batch-artifact-bytes'] === undefined
          ? defaultMaxBatchArtifactBytes
          : parseByteCount(own['max-batch-artifact-bytes'], '--max-batch-artifact-bytes'),
      stallTimeoutMs:
        own['stall-timeout'] === undefined
          ? defaultStallTimeoutMs
          : parseDuration(own['stall-timeout'], '--stall-timeout'),
      artifactTtlMs:
        redisStore && own.queue === undefined
          ? own['artifact-ttl'] === undefined
            ? defaultArtifactTtlMs
            : parseDuration(own['artifact-ttl'], '--artifact-ttl')
          : undefined,
      run,
    },
  };
}

/** `--flag=value` as `['--flag', 'value']`; anything else as `[word, undefined]`. */
function splitFlag(word: string): [string, string | undefined] {
  if (!word.startsWith('--')) return [word, undefined];
  const equals = word.indexOf('=');
  return equals === -1 ? [word, undefined] : [word.slice(0, equals), word.slice(equals + 1)];
}

function parseDollars(text: string): number {
  const value = /^(\d+(\.\d*)?|\.\d+)$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0) {
    throw new UsageError(
      `--max-batch-cost needs a positive number of US dollars such as 5 or 0.50 (got ${JSON.stringify(text)})`,
    );
  }
  return value;
}
