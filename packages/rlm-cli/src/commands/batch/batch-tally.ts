import { emptyRunUsage, type RunUsage } from '@rlm/core';
import { addRunUsage } from '../../jobs/add-run-usage.js';
import type { BatchJob } from '../../jobs/parse-batch-jobs.js';
import type { BatchResult } from '../../jobs/run-batch-query.js';
import { totalTokens } from '../../output/format-run-totals.js';
import type { RunTally } from '../../rlm/run-tally.js';
import type { StoreFailure } from '../../store/watch-store-failures.js';
import type { BatchProgress } from './format-batch-progress.js';

/**
 * What a batch has done so far, counted as its jobs start, end and report: the jobs running
 * (with what each has spent), answered, failed and not run, the store's failures, and the usage
 * of them all.
 */
export class BatchTally {
  readonly #started = performance.now();
  readonly #running = new Map<BatchJob, RunTally>();
  #finishedUsage: RunUsage = emptyRunUsage();
  #total = 0;
  #answered = 0;
  #failed = 0;
  readonly #notRun: BatchJob[] = [];
  readonly #storeFailed: { readonly job: BatchJob; readonly first: StoreFailure }[] = [];

  /** Jobs this run of the batch has (ids already answered are not counted). */
  get total(): number {
    return this.#total;
  }

  set total(jobs: number) {
    this.#total = jobs;
  }

  /** Jobs running now. */
  get running(): number {
    return this.#running.size;
  }

  /** Jobs answered so far. */
  get answered(): number {
    return this.#answered;
  }

  /** Jobs failed so far. */
  get failed(): number {
    return this.#failed;
  }

  /** Jobs not run because the batch's cost cap was reached. */
  get notRun(): readonly BatchJob[] {
    return this.#notRun;
  }

  /** The jobs under which the store failed, with its first failure in each. */
  get storeFailed(): readonly { readonly job: BatchJob; readonly first: StoreFailure }[] {
    return this.#storeFailed;
  }

  /** Milliseconds since the tally was created. */
  get elapsedMs(): number {
    return performance.now() - this.#started;
  }

  /** A job started here; `tally` counts what it spends. */
  started(job: BatchJob, tally: RunTally): void {
    this.#running.set(job, tally);
  }

  /** A job started here ended: what it spent moves to the finished usage. */
  ended(job: BatchJob): void {
    const tally = this.#running.get(job);
    if (tally) this.#finishedUsage = addRunUsage(this.#finishedUsage, tally.snapshot().usage);
    this.#running.delete(job);
  }

  /** A job the cost cap kept from running. */
  skipped(job: BatchJob): void {
    this.#notRun.push(job);
  }

  /**
   * A job's result. `addUsage` adds its usage to the total: for jobs no {@link started} tally
   * counted (run by queue workers).
   */
  finished(job: BatchJob, result: BatchResult, addUsage: boolean): void {
    if (result.storeFailures) this.#storeFailed.push({ job, first: result.storeFailures.first });
    if (addUsage) this.#finishedUsage = addRunUsage(this.#finishedUsage, result.usage);
    if ('answer' in result) this.#answered++;
    else this.#failed++;
  }

  /** Usage of the finished jobs plus what the running ones have spent so far. */
  spent(): RunUsage {
    let total = this.#finishedUsage;
    for (const tally of this.#running.values()) total = addRunUsage(total, tally.snapshot().usage);
    return total;
  }

  /** Where the batch stands, for its progress line. */
  progress(): BatchProgress {
    const spent = this.spent();
    return {
      total: this.#total,
      answered: this.#answered,
      failed: this.#failed,
      running: this.#running.size,
      tokens: totalTokens(spent),
      costUsd: spent.costUsd,
      elapsedMs: this.elapsedMs,
    };
  }
}
