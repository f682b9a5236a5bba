import type { EvalItem, EvalRun } from '@rlm/eval';
import type { BatchJob } from '../../jobs/parse-batch-jobs.js';
import type { BatchResult } from '../../jobs/run-batch-query.js';
import type { BatchOutcome } from '../batch/run-batch-jobs.js';

/** One item run by one variant: a job of the batch runner. */
export interface EvalJob extends BatchJob {
  readonly item: EvalItem;
  readonly variant: string;
}

/** How a job's run went, for its score. */
export interface JobRun {
  readonly run: EvalRun;
  readonly contextChars: number | undefined;
  /** Flags whose limit a worker lowered to its own. */
  readonly bounded?: readonly string[];
}

/** The eval's jobs run here or on the queue: how to start them, and each one's run. */
export interface EvalBatch {
  readonly start: (signal: AbortSignal) => AsyncGenerator<BatchOutcome, void, undefined>;
  /** Called once per result, as it comes. */
  readonly runOf: (job: EvalJob, result: BatchResult) => JobRun;
}
