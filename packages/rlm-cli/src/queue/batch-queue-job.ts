import { createHash } from 'node:crypto';
import path from 'node:path';
import type { CliOptions } from '../run-options/run-options.js';
import type { BatchJob, BatchJobId } from '../jobs/parse-batch-jobs.js';
import type { QueuedRunSettings } from './queued-run-settings.js';

/** The BullMQ queue every `rlm batch --queue` and `rlm worker` use. */
export const batchQueueName = 'rlm-batch';

/**
 * Keys beside the queue, on its Redis server, that `rlm batch --queue` and `rlm worker` share:
 * a job's result (written by its worker before BullMQ is told, so a result outlives a queue that
 * lost the job), its claim (which worker runs it, and when it last made progress), and the
 * bytes a batch's jobs stored.
 */
export const queueKeys = {
  result: (jobId: string) => `rlm-batch:result:${jobId}`,
  claim: (jobId: string) => `rlm-batch:claim:${jobId}`,
  artifactBytes: (batchId: string) => `rlm-batch:artifact-bytes:${batchId}`,
} as const;

/** A running job's claim, as its worker writes it (JSON) under {@link queueKeys}.claim. */
export interface JobClaim {
  /** `host:pid` of the worker. */
  readonly worker: string;
  /** Tells this run of the job from another run of it (a job queued again). */
  readonly token: string;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  /** Epoch milliseconds of the job's latest event (a model answer, a code block run, ...). */
  readonly progressAt: number;
}

/** Reads a claim's JSON; `undefined` for anything else. */
export function parseJobClaim(text: string | null | undefined): JobClaim | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value = JSON.parse(text) as Partial<JobClaim>;
    return typeof value.worker === 'string' &&
      typeof value.token === 'string' &&
      typeof value.startedAt === 'number' &&
      typeof value.progressAt === 'number'
      ? (value as JobClaim)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Where a queued job's context comes from: a file or a directory, as absolute paths. */
export type QueuedContext =
  | {
      readonly file: string;
      /** `--strict`: a `.json` file that does not parse fails the job instead of being text. */
      readonly strict?: boolean;
    }
  | {
      readonly directory: string;
      readonly concat: boolean;
      readonly include: readonly string[];
      readonly exclude: readonly string[];
      readonly gitignore: boolean;
      readonly defaultExcludes: boolean;
      readonly strict: boolean;
    };

/** A job's data in the queue: what a worker on any machine needs to run it. */
export interface QueuedJobData {
  readonly id: BatchJobId;
  readonly query: string;
  /** Absolute paths: workers on other machines need the same files at the same paths. */
  readonly context: QueuedContext | undefined;
  /** The batch the job belongs to (absent from jobs queued by earlier versions). */
  readonly batch?: {
    /** {@link queuedBatchId} of the batch. */
    readonly id: string;
    /** `--max-batch-artifact-bytes`: what all the batch's jobs may store together. */
    readonly maxArtifactBytes: number | undefined;
  };
  /**
   * The run settings of the job (an `rlm eval` variant's), within the worker's own limits;
   * absent: the worker's flags. Untrusted: the worker reads them with `readQueuedRunSettings`.
   */
  readonly run?: QueuedRunSettings;
  /**
   * The `rlm eval` variant the job runs (absent for a batch's jobs): with `batch`, the worker
   * keeps the variant's runs apart from the other variants' (see `queuedEvalRunNamespace`).
   * Untrusted, like `run`.
   */
  readonly variant?: string;
}

/** The id of a batch on the queue: the same for the same JSONL file, on any machine's rerun. */
export function queuedBatchId(jobsFile: string): string {
  return createHash('sha256').update(path.resolve(jobsFile)).digest('hex').slice(0, 40);
}

/**
 * The BullMQ job id of a batch's job: the same for the same JSONL file, id and run settings, so
 * a rerun finds the jobs it queued before, and different across files and settings.
 */
export function queuedJobId(jobsFile: string, job: BatchJob, run?: QueuedRunSettings): string {
  return createHash('sha256')
    .update(
      `${path.resolve(jobsFile)}\u0000${job.key}${run === undefined ? '' : `\u0000${JSON.stringify(run)}`}`,
    )
    .digest('hex')
    .slice(0, 40);
}

/**
 * The data a worker receives for `job`, with the batch's context flags as a fallback (and the
 * way they pick a directory's files for a job's own directory).
 */
export function queuedJobData(
  job: BatchJob,
  cli: CliOptions,
  batch: NonNullable<QueuedJobData['batch']>,
  run?: QueuedRunSettings,
  variant?: string,
): QueuedJobData {
  const strict = cli.contextSelection.strict ? { strict: true } : {};
  const context: QueuedContext | undefined =
    job.contextFile !== undefined
      ? { file: job.contextFile, ...strict }
      : job.contextDirectory !== undefined
        ? { directory: job.contextDirectory, concat: cli.concat, ...cli.contextSelection }
        : cli.contextFile !== undefined
          ? { file: path.resolve(cli.contextFile), ...strict }
          : cli.contextDirectory !== undefined
            ? {
                directory: path.resolve(cli.contextDirectory),
                concat: cli.concat,
                ...cli.contextSelection,
              }
            : undefined;
  return {
    id: job.id,
    query: job.query,
    context,
    batch,
    ...(run === undefined ? {} : { run }),
    ...(variant === undefined ? {} : { variant }),
  };
}
