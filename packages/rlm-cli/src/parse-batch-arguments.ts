import path from 'node:path';
import { defaultModelPrices, findModelPrice } from '@rlm/core';
import { type CliOptions, parseArguments } from './parse-arguments.js';
import { parseQueueUrl } from './parse-queue-url.js';
import { UsageError } from './usage-error.js';

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
  /**
   * Every run flag, applied to each job: model, budgets (`--max-cost` is per job), batch-wide
   * `--context`/`--context-dir`, store, tools, `--quiet`.
   */
  readonly run: CliOptions;
}

/** Jobs run at once unless `--concurrency` says otherwise. */
export const defaultBatchConcurrency = 4;

/** The flags only `rlm batch` has, and `--out`, which means the results file there. */
const batchFlags = new Map([
  ['--concurrency', 'concurrency'],
  ['--context-root', 'context-root'],
  ['--max-batch-cost', 'max-batch-cost'],
  ['--out', 'out'],
  ['--queue', 'queue'],
  ['-o', 'out'],
] as const);

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
  const own: Partial<
    Record<'concurrency' | 'context-root' | 'max-batch-cost' | 'out' | 'queue', string>
  > = {};
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
  const command = parseArguments(rest, env);
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
    own.concurrency === undefined ? defaultBatchConcurrency : Number(own.concurrency);
  if (
    !/^\d+$/.test(own.concurrency ?? '1') ||
    !Number.isSafeInteger(concurrency) ||
    concurrency < 1
  ) {
    throw new UsageError(
      `--concurrency needs a positive whole number (got ${JSON.stringify(own.concurrency)})`,
    );
  }
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
  return {
    kind: 'batch',
    options: {
      jobsFile: run.query,
      concurrency,
      queue: own.queue,
      outFile: own.out,
      contextRoot: own['context-root'] ?? path.dirname(path.resolve(run.query)),
      maxBatchCostUsd,
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
