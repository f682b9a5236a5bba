import {
  type ArtifactStore,
  emptyRunUsage,
  type RLM,
  type RlmEvent,
  type RunUsage,
} from '@rlm/core';
import { addRunUsage } from './add-run-usage.js';
import { limitBatchArtifacts, memoryArtifactCounter } from './batch-artifact-quota.js';
import { loadContext } from './load-context.js';
import type { ModelSpec } from './parse-arguments.js';
import type { BatchJob } from './parse-batch-jobs.js';
import { type BatchResult, runBatchQuery } from './run-batch-query.js';
import { RunTally } from './run-tally.js';
import { type StoreFailure, StoreFailureWatch } from './watch-store-failures.js';

/**
 * What became of one job of a batch: its result line (an answer or a failure), or `not-run`
 * when the batch's cost cap was spent before it started. A job stopped by the caller's signal
 * has no outcome.
 */
export type BatchOutcome =
  | { readonly kind: 'result'; readonly job: BatchJob; readonly result: BatchResult }
  | { readonly kind: 'not-run'; readonly job: BatchJob };

/** How {@link runBatchJobs} runs the jobs. */
export interface BatchJobsOptions {
  /** Makes one job's RLM over its own view of the store (`undefined` without a store). */
  readonly createRlm: (artifacts: ArtifactStore | undefined) => RLM;
  /** Where jobs keep their artifacts, checkpoints and traces; `undefined` for none. */
  readonly store: ArtifactStore | undefined;
  /** Jobs run at once (1 or more). */
  readonly concurrency: number;
  /** US dollars: once the batch has spent this, no job starts (running ones finish). */
  readonly maxBatchCostUsd?: number;
  /** Bytes the jobs may store with `store()` together; `undefined` for no bound. */
  readonly maxArtifactBytes?: number;
  /** The context of the jobs without one of their own. */
  readonly context: unknown;
  /** Bytes a job's own context file may have. */
  readonly maxContextBytes: number;
  /** Kept in each job's trace. */
  readonly model: ModelSpec;
  readonly subModel: ModelSpec | undefined;
  /** Stops the batch: no job starts, running jobs are aborted and yield nothing. */
  readonly signal?: AbortSignal;
  /** A job starts; `tally` counts what it spends while it runs. */
  readonly onStart?: (job: BatchJob, tally: RunTally) => void;
  /** A job ended, with an outcome or stopped. */
  readonly onEnd?: (job: BatchJob) => void;
  /** Every event of every job (a model retry, ...). */
  readonly onEvent?: (job: BatchJob, event: RlmEvent) => void;
  /** The first failed write of a job to the store, as it happens. */
  readonly onStoreFailure?: (job: BatchJob, failure: StoreFailure) => void;
  /** A line about a job that is not its outcome (its trace could not be kept, ...). */
  readonly report?: (job: BatchJob, line: string) => void;
}

/**
 * Runs `jobs` in this process, at most `concurrency` at once, each on its own RLM and sandbox,
 * and yields each one's outcome as it ends: a result (with the job's store failures, when the
 * store failed under it), or `not-run` for the jobs left when the cost cap was reached. Breaking
 * out of the loop stops the batch (running jobs are aborted). Rejects only for a bug: a job's
 * failure is a result.
 */
export async function* runBatchJobs(
  jobs: readonly BatchJob[],
  options: BatchJobsOptions,
): AsyncGenerator<BatchOutcome, void, undefined> {
  const stopped = new AbortController();
  const signal = options.signal
    ? AbortSignal.any([options.signal, stopped.signal])
    : stopped.signal;
  const contexts = new JobContexts(jobs, options.maxContextBytes);
  const counter = memoryArtifactCounter();
  const running = new Set<RunTally>();
  let finishedUsage: RunUsage = emptyRunUsage();
  const spentUsd = () => {
    let total = finishedUsage;
    for (const tally of running) total = addRunUsage(total, tally.snapshot().usage);
    return total.costUsd ?? 0;
  };
  const outcomes: BatchOutcome[] = [];
  let wake: () => void = () => {};
  let next = 0;
  let capReached = false;

  const runJob = async (job: BatchJob): Promise<BatchResult | undefined> => {
    const tally = new RunTally();
    running.add(tally);
    options.onStart?.(job, tally);
    const watch = new StoreFailureWatch((failure) => options.onStoreFailure?.(job, failure));
    const { store, maxArtifactBytes } = options;
    const view =
      store &&
      watch.wrap(
        maxArtifactBytes === undefined
          ? store
          : limitBatchArtifacts(store, counter, maxArtifactBytes),
      );
    const rlm = options.createRlm(view);
    let result: BatchResult;
    try {
      ({ result } = await runBatchQuery(rlm, job, {
        context: () => (job.contextFile === undefined ? options.context : contexts.of(job)),
        signal,
        tally,
        onEvent: (event) => options.onEvent?.(job, event),
        store,
        resume: false,
        report: (line) => options.report?.(job, line),
        model: options.model,
        subModel: options.subModel,
      }));
    } finally {
      // Waits for the job's last checkpoint writes, whose failures count too.
      await rlm.dispose().catch(() => {});
      contexts.release(job);
      running.delete(tally);
      options.onEnd?.(job);
    }
    finishedUsage = addRunUsage(finishedUsage, result.usage);
    const failures = watch.take();
    // A job stopped by the signal is not an outcome: a rerun runs it.
    if (signal.aborted && !('answer' in result)) return undefined;
    return failures.length === 0
      ? result
      : { ...result, storeFailures: { count: failures.length, first: failures[0]! } };
  };

  const work = async () => {
    while (!signal.aborted) {
      const cap = options.maxBatchCostUsd;
      if (cap !== undefined && spentUsd() >= cap) {
        capReached = true;
        return;
      }
      const job = jobs[next++];
      if (job === undefined) return;
      const result = await runJob(job);
      if (result !== undefined) {
        outcomes.push({ kind: 'result', job, result });
        wake();
      }
    }
  };
  let settled = false;
  let failure: { readonly error: unknown } | undefined;
  const workers = Promise.all(
    Array.from({ length: Math.min(options.concurrency, jobs.length) }, work),
  ).then(
    () => {
      settled = true;
      wake();
    },
    (error: unknown) => {
      failure = { error };
      settled = true;
      wake();
    },
  );
  try {
    for (;;) {
      const outcome = outcomes.shift();
      if (outcome !== undefined) {
        yield outcome;
        continue;
      }
      if (settled) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    if (failure) throw failure.error;
    if (capReached && !signal.aborted) {
      for (const job of jobs.slice(next)) yield { kind: 'not-run', job };
    }
  } finally {
    stopped.abort();
    await workers;
  }
}

/** The jobs' own context files, each loaded once while jobs still need it. */
class JobContexts {
  readonly #maxBytes: number;
  readonly #files = new Map<string, { value: Promise<unknown> | undefined; uses: number }>();

  constructor(jobs: readonly BatchJob[], maxBytes: number) {
    this.#maxBytes = maxBytes;
    for (const job of jobs) {
      if (job.contextFile === undefined) continue;
      const entry = this.#files.get(job.contextFile);
      if (entry) entry.uses++;
      else this.#files.set(job.contextFile, { value: undefined, uses: 1 });
    }
  }

  /** The job's own context, loaded on first use. */
  of(job: BatchJob): Promise<unknown> {
    const entry = this.#files.get(job.contextFile!)!;
    if (entry.value === undefined) {
      entry.value = loadContext({ file: job.contextFile, maxBytes: this.#maxBytes }).then(
        (loaded) => loaded?.value,
      );
      // A failure reaches every job that awaits it; none is left unhandled.
      entry.value.catch(() => {});
    }
    return entry.value;
  }

  /** Drops the job's context once its last job is done with it. */
  release(job: BatchJob): void {
    if (job.contextFile === undefined) return;
    const entry = this.#files.get(job.contextFile);
    if (entry && --entry.uses <= 0) this.#files.delete(job.contextFile);
  }
}
