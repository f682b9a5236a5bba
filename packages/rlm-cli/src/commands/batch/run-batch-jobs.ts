import {
  type ArtifactStore,
  emptyRunUsage,
  type RLM,
  type RlmEvent,
  type RunUsage,
} from '@rlm/core';
import { addRunUsage } from '../../jobs/add-run-usage.js';
import { limitBatchArtifacts, memoryArtifactCounter } from '../../jobs/batch-artifact-quota.js';
import type { ContextRoot } from '../../context/context-root.js';
import { type LoadContextOptions, loadContext } from '../../context/load-context.js';
import type { ModelSpec } from '../../run-options/run-options.js';
import type { BatchJob } from '../../jobs/parse-batch-jobs.js';
import { type BatchResult, runBatchQuery } from '../../jobs/run-batch-query.js';
import { RunTally } from '../../rlm/run-tally.js';
import { type StoreFailure, StoreFailureWatch } from '../../store/watch-store-failures.js';

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
  readonly createRlm: (artifacts: ArtifactStore | undefined, job: BatchJob) => RLM;
  /**
   * Runs one job on its RLM; default: {@link runBatchQuery} with the job's context, keeping its
   * trace in `store` (`rlm eval` runs its variants and its baseline this way). Never rejects.
   */
  readonly execute?: (job: BatchJob, io: BatchJobIo) => Promise<BatchResult>;
  /**
   * How a job's own context is read: `--strict` for its file, and the `--context-dir` flags for
   * its directory (`rlm eval`'s `context_dir`).
   */
  readonly directoryContext?: DirectoryContextSelection;
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
  /**
   * Where a job's own context file or directory must lie (`--context-root`): see
   * {@link LoadContextOptions.root}. Unset: anywhere.
   */
  readonly contextRoot?: ContextRoot;
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

/** What {@link BatchJobsOptions.execute} gets for one job. */
export interface BatchJobIo {
  /** The job's RLM, made by `createRlm` over the job's view of the store. */
  readonly rlm: RLM;
  /** The job's context: its own file or directory, else the batch's; rejects when it cannot load. */
  readonly context: () => Promise<unknown> | unknown;
  readonly signal: AbortSignal;
  /** Counts what the job spends: `maxBatchCostUsd` sees it. */
  readonly tally: RunTally;
  readonly onEvent: (event: RlmEvent) => void;
  readonly store: ArtifactStore | undefined;
  readonly report: (line: string) => void;
}

/** How a context directory is walked: the flags of `--context-dir`. */
export type DirectoryContextSelection = Omit<
  LoadContextOptions,
  'file' | 'directory' | 'maxBytes' | 'root'
>;

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
  const contexts = new JobContexts(jobs, {
    ...options.directoryContext,
    maxBytes: options.maxContextBytes,
    ...(options.contextRoot ? { root: options.contextRoot } : {}),
  });
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
    const rlm = options.createRlm(view, job);
    let result: BatchResult;
    try {
      const io: BatchJobIo = {
        rlm,
        context: () => (contextSource(job) === undefined ? options.context : contexts.of(job)),
        signal,
        tally,
        onEvent: (event) => options.onEvent?.(job, event),
        store,
        report: (line) => options.report?.(job, line),
      };
      result = options.execute
        ? await options.execute(job, io)
        : (
            await runBatchQuery(rlm, job, {
              ...io,
              resume: false,
              model: options.model,
              subModel: options.subModel,
            })
          ).result;
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

/** Where a job's own context comes from (a file or a directory); `undefined` for the batch's. */
function contextSource(job: BatchJob): string | undefined {
  return job.contextFile ?? job.contextDirectory;
}

/** How a job's own context is read: the directory selection, the byte bound and the root. */
type JobContextSettings = Omit<LoadContextOptions, 'file' | 'directory'>;

/** The jobs' own context files and directories, each loaded once while jobs still need it. */
class JobContexts {
  readonly #load: JobContextSettings;
  readonly #files = new Map<string, { value: Promise<unknown> | undefined; uses: number }>();

  constructor(jobs: readonly BatchJob[], load: JobContextSettings) {
    this.#load = load;
    for (const job of jobs) {
      const source = contextSource(job);
      if (source === undefined) continue;
      const entry = this.#files.get(source);
      if (entry) entry.uses++;
      else this.#files.set(source, { value: undefined, uses: 1 });
    }
  }

  /** The job's own context, loaded on first use. */
  of(job: BatchJob): Promise<unknown> {
    const entry = this.#files.get(contextSource(job)!)!;
    if (entry.value === undefined) {
      const directory = job.contextDirectory;
      const { maxBytes, root } = this.#load;
      entry.value = loadContext(
        directory === undefined
          ? {
              file: job.contextFile,
              strict: this.#load.strict,
              maxBytes,
              ...(root ? { root } : {}),
            }
          : { ...this.#load, directory },
      ).then((loaded) => loaded?.value);
      // A failure reaches every job that awaits it; none is left unhandled.
      entry.value.catch(() => {});
    }
    return entry.value;
  }

  /** Drops the job's context once its last job is done with it. */
  release(job: BatchJob): void {
    const source = contextSource(job);
    if (source === undefined) return;
    const entry = this.#files.get(source);
    if (entry && --entry.uses <= 0) this.#files.delete(source);
  }
}
