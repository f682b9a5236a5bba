import { parseDuration, parsePositiveInteger } from '../../run-options/parse-flag-values.js';
import { parseRunOptions } from '../../run-options/parse-run-options.js';
import type { CliOptions } from '../../run-options/run-options.js';
import { defaultMaxQueryChars } from '../../jobs/parse-batch-jobs.js';
import { parseQueueUrl, type QueueConnection } from '../../queue/parse-queue-url.js';
import { UsageError } from '../../usage-error.js';
import { defaultArtifactTtlMs } from '../../store/open-store.js';

/** `rlm worker`'s command line, validated. */
export type WorkerCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'worker'; readonly options: WorkerOptions };

/** What `rlm worker` listens on and how it runs jobs. */
export interface WorkerOptions {
  /** `--queue`: the Redis URL of the queue, as given. */
  readonly queue: string;
  /** `--queue`, parsed. */
  readonly connection: QueueConnection;
  /** `--concurrency`: jobs run at once (default 2). */
  readonly concurrency: number;
  /** `--lock-duration`: how long a job stays claimed without news, in ms (default 30 s). */
  readonly lockDurationMs: number;
  /** `--artifact-ttl`: expiry of what a job writes to a Redis store, in ms (default 7 days). */
  readonly artifactTtlMs: number;
  /** `--max-query-chars`: a longer query fails without a model call. */
  readonly maxQueryChars: number;
  /** `--context-root`: the directory every job's context must lie in (default the cwd). */
  readonly contextRoot: string;
  /** The run flags every job runs with. */
  readonly cli: CliOptions;
}

/** The flags only `rlm worker` has. */
const workerFlags =
  /^--(queue|concurrency|lock-duration|artifact-ttl|max-query-chars|context-root)(?:=(.*))?$/;

/**
 * Parses the words after `rlm worker`: its own flags and every run flag (parsed as for a single
 * query). Throws a {@link UsageError} with one line for a query, a missing `--queue` or anything
 * malformed.
 */
export function parseWorkerArguments(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): WorkerCommand {
  const own: Record<string, string> = {};
  const rest: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index]!;
    const match = workerFlags.exec(word);
    if (match === null) {
      rest.push(word);
      continue;
    }
    const value = match[2] ?? argv[++index];
    if (value === undefined || (match[2] === undefined && value.startsWith('-'))) {
      throw new UsageError(`--${match[1]} needs a value`);
    }
    own[match[1]!] = value;
  }
  const command = parseRunOptions(rest, env);
  if (command.kind === 'help') return { kind: 'help' };
  if (command.kind !== 'run' || command.options.query !== undefined) {
    throw new UsageError(
      'rlm worker takes no query: the queue gives it jobs; see rlm worker --help',
    );
  }
  if (own.queue === undefined) {
    throw new UsageError(
      'rlm worker needs --queue redis://host:port, the queue of rlm batch --queue',
    );
  }
  const connection = parseQueueUrl(own.queue);
  const options: WorkerOptions = {
    queue: own.queue,
    connection,
    concurrency: parsePositiveInteger(own.concurrency ?? '2', '--concurrency'),
    lockDurationMs: parseDuration(own['lock-duration'] ?? '30s', '--lock-duration'),
    artifactTtlMs:
      own['artifact-ttl'] === undefined
        ? defaultArtifactTtlMs
        : parseDuration(own['artifact-ttl'], '--artifact-ttl'),
    maxQueryChars: parsePositiveInteger(
      own['max-query-chars'] ?? String(defaultMaxQueryChars),
      '--max-query-chars',
    ),
    contextRoot: own['context-root'] ?? process.cwd(),
    cli: command.options,
  };
  if (options.lockDurationMs < 1000) {
    throw new UsageError(
      `--lock-duration needs at least 1s, such as 30s or 2m (got ${JSON.stringify(own['lock-duration'])})`,
    );
  }
  return { kind: 'worker', options };
}
