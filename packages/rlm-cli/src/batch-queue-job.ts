import { createHash } from 'node:crypto';
import path from 'node:path';
import type { CliOptions } from './parse-arguments.js';
import type { BatchJob, BatchJobId } from './parse-batch-jobs.js';

/** The BullMQ queue every `rlm batch --queue` and `rlm worker` use. */
export const batchQueueName = 'rlm-batch';

/** Where a queued job's context comes from: a file or a directory, as absolute paths. */
export type QueuedContext =
  | { readonly file: string }
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
}

/**
 * The BullMQ job id of a batch's job: the same for the same JSONL file and id, so a rerun finds
 * the jobs it queued before, and different across files.
 */
export function queuedJobId(jobsFile: string, job: BatchJob): string {
  return createHash('sha256')
    .update(`${path.resolve(jobsFile)}\u0000${job.key}`)
    .digest('hex')
    .slice(0, 40);
}

/** The data a worker receives for `job`, with the batch's context flags as a fallback. */
export function queuedJobData(job: BatchJob, cli: CliOptions): QueuedJobData {
  const context: QueuedContext | undefined =
    job.contextFile !== undefined
      ? { file: job.contextFile }
      : cli.contextFile !== undefined
        ? { file: path.resolve(cli.contextFile) }
        : cli.contextDirectory !== undefined
          ? {
              directory: path.resolve(cli.contextDirectory),
              concat: cli.concat,
              ...cli.contextSelection,
            }
          : undefined;
  return { id: job.id, query: job.query, context };
}
