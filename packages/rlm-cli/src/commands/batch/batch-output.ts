import type { RlmEvent } from '@rlm/core';
import { describeJobId, describeJobIds } from '../../jobs/describe-job-id.js';
import type { BatchJob } from '../../jobs/parse-batch-jobs.js';
import type { BatchResult } from '../../jobs/run-batch-query.js';
import { formatCost, formatTokens } from '../../output/format-run-totals.js';
import { formatDuration } from '../../output/format-runs-table.js';
import { causeOf, RateLimitedLog } from '../../queue/rate-limited-log.js';
import { formatModelRetry } from '../../rlm/format-model-retry.js';
import { ModelCallNames } from '../../rlm/model-call-names.js';
import type { RunTally } from '../../rlm/run-tally.js';
import type { StoreFailure } from '../../store/watch-store-failures.js';
import type { BatchCommandIo } from './batch-command-io.js';
import type { BatchResultsFile } from './batch-results-file.js';
import { BatchProgressLine } from './batch-progress-line.js';
import { BatchTally } from './batch-tally.js';
import type { BatchOptions } from './parse-batch-arguments.js';
import type { BatchOutcome } from './run-batch-jobs.js';
import { stopOnSignals } from './stop-on-signals.js';

/** Exit code of a batch whose jobs all answered but whose store failed under some. */
const storeFailedExitCode = 3;

/**
 * What a batch shows and writes while its outcomes come: each result line to the results file
 * (stopping the batch when a write fails), a line per job (or a live progress line on a
 * terminal), retry notices and store failures with the job's id, signals, and the closing
 * summary with the exit code.
 */
export class BatchOutput {
  readonly #options: BatchOptions;
  readonly #io: BatchCommandIo;
  readonly #results: BatchResultsFile;
  readonly #problems: number;
  readonly #describe: ((result: BatchResult) => string | undefined) | undefined;
  readonly #tally = new BatchTally();
  /** What each running job's model calls are, for its retry lines. */
  readonly #callNames = new Map<BatchJob, ModelCallNames>();
  readonly #notices: RateLimitedLog;
  #resultsClosed = false;
  readonly #stderr: BatchProgressLine;

  constructor(
    options: BatchOptions,
    io: BatchCommandIo,
    results: BatchResultsFile,
    problems: number,
    /** What a result's line says after its id instead of "answered in ...", when it says more. */
    describe?: (result: BatchResult) => string | undefined,
  ) {
    this.#options = options;
    this.#io = io;
    this.#results = results;
    this.#problems = problems;
    this.#describe = describe;
    this.#notices = new RateLimitedLog((line) => this.line(line), { prefix: 'rlm: ' });
    // A live progress line: on a terminal, for jobs run here, unless `--quiet`.
    const live = Boolean(io.stderr.isTTY) && !options.run.quiet && options.queue === undefined;
    this.#stderr = new BatchProgressLine(io.stderr, live, () => this.#tally.progress());
  }

  /**
   * Runs the batch `start` makes (handing it the signal that stops it) and writes its outcomes;
   * resolves to the exit code. The first SIGINT or SIGTERM stops the batch; a second quits at
   * once.
   */
  async consume(
    jobs: readonly BatchJob[],
    start: (signal: AbortSignal) => AsyncGenerator<BatchOutcome, void, undefined>,
  ): Promise<number> {
    this.#tally.total = jobs.length;
    const stop = stopOnSignals(this.#io, (signal) =>
      this.line(
        this.#options.queue === undefined
          ? `rlm: ${signal}: stopping ${this.#tally.running} running ${this.#tally.running === 1 ? 'job' : 'jobs'} (not written, so a rerun runs them); again to quit at once`
          : `rlm: ${signal}: no longer waiting (again to quit at once)`,
      ),
    );
    const stopTicker = this.#stderr.start();
    const written = new Set<BatchJob>();
    let writeFailure: { readonly job: BatchJob; readonly error: unknown } | undefined;
    try {
      const outcomes = start(stop.signal);
      const drained = (async () => {
        for await (const outcome of outcomes) {
          if (outcome.kind === 'not-run') {
            this.#tally.skipped(outcome.job);
            written.add(outcome.job);
            continue;
          }
          try {
            this.#results.append(outcome.result);
          } catch (error) {
            writeFailure = { job: outcome.job, error };
            break;
          }
          written.add(outcome.job);
          this.#record(outcome.job, outcome.result);
        }
      })();
      const quit = await Promise.race([drained.then(() => undefined), stop.forced]);
      if (quit !== undefined) return quit;
    } finally {
      stopTicker();
      stop.dispose();
      this.#notices.flush();
      this.#stderr.clear();
    }
    const unanswered = jobs.filter((job) => !written.has(job));
    if (writeFailure !== undefined) {
      const { error } = writeFailure;
      const reason = error instanceof Error ? error.message : String(error);
      this.line(
        `rlm: cannot write to --out ${this.#options.outFile ?? '(stdout)'}: ${reason}; stopped the batch: ${unanswered.length} ${unanswered.length === 1 ? 'id is' : 'ids are'} not written (${describeJobIds(unanswered.map((job) => job.id))})${this.#options.queue === undefined ? '' : ', their results stay on the queue'}; free space or fix the file, then rerun the same command`,
      );
    }
    const syncFailure = this.closeResults();
    if (this.#tally.notRun.length > 0) {
      this.line(
        `rlm: the batch spent ${formatCost(this.#tally.spent())} of --max-batch-cost $${this.#options.maxBatchCostUsd}: ${this.#tally.notRun.length} ${this.#tally.notRun.length === 1 ? 'job' : 'jobs'} not run (${describeJobIds(this.#tally.notRun.map((job) => job.id))}); rerun the same command with a higher cap to run them`,
      );
    }
    const missing = writeFailure === undefined ? unanswered.length : 0;
    if (stop.exitCode !== undefined && missing > 0) {
      const ids = describeJobIds(unanswered.map((job) => job.id));
      this.line(
        this.#options.queue === undefined
          ? `rlm: ${missing} ${missing === 1 ? 'id is' : 'ids are'} not answered (${ids}): rerun the same command to run ${missing === 1 ? 'it' : 'them'}`
          : `rlm: stopped waiting; ${missing} ${missing === 1 ? 'job stays' : 'jobs stay'} on the queue (ids ${ids}): rerun the same command to collect ${missing === 1 ? 'its result' : 'their results'}`,
      );
    }
    this.#summary(stop.exitCode !== undefined, stop.exitCode === undefined ? missing : 0);
    if (stop.exitCode !== undefined) return stop.exitCode;
    if (
      writeFailure !== undefined ||
      syncFailure ||
      missing > 0 ||
      this.#tally.failed > 0 ||
      this.#tally.notRun.length > 0 ||
      this.#problems > 0
    ) {
      return 1;
    }
    if (this.#tally.storeFailed.length > 0 && this.#options.run.storeErrors === 'fail') {
      const { first } = this.#tally.storeFailed[0]!;
      this.line(
        `rlm: every job answered, but the store failed during ${this.#tally.storeFailed.length} of them (first: ${first.operation}: ${first.message}), so their state was not fully saved (storeFailures in their result lines); fix the store and rerun them, or pass --store-errors warn`,
      );
      return storeFailedExitCode;
    }
    return 0;
  }

  /** Syncs and closes the results file once; `true` when the sync failed (said on stderr). */
  closeResults(): boolean {
    if (this.#resultsClosed) return false;
    this.#resultsClosed = true;
    try {
      this.#results.close();
      return false;
    } catch (error) {
      this.line(
        `rlm: cannot sync --out ${this.#options.outFile} to disk: ${error instanceof Error ? error.message : String(error)}; its last lines may be lost if the machine stops: rerun the same command to check`,
      );
      return true;
    }
  }

  started(job: BatchJob, tally: RunTally): void {
    this.#tally.started(job, tally);
    this.#callNames.set(job, new ModelCallNames());
    this.#stderr.show();
  }

  ended(job: BatchJob): void {
    this.#tally.ended(job);
    this.#callNames.delete(job);
    this.#stderr.show();
  }

  /** Retry notices, with the job's id and the call retried, even with `--quiet`. */
  event(job: BatchJob, event: RlmEvent): void {
    const names = this.#callNames.get(job);
    names?.observe(event);
    if (event.type !== 'model-retry') return;
    const call = names?.nameOf(event) ?? 'a model call';
    this.line(formatModelRetry(event, call, `rlm: id ${describeJobId(job.id)}: `).trimEnd());
  }

  /** A job's first store failure, one line per cause at most every 10 s. */
  storeFailed(job: BatchJob, failure: StoreFailure): void {
    this.jobNotice(
      job,
      `the store failed (${failure.operation}): ${failure.message}; the batch goes on, but what this job stores may be lost${this.#options.run.storeErrors === 'fail' ? ' (exit 3 at the end; --store-errors warn for 0)' : ''}`,
      causeOf(`${failure.operation} ${failure.message}`),
    );
  }

  /** A line about a job, rate-limited by `cause`. */
  jobNotice(job: BatchJob, text: string, cause: string): void {
    this.#notices.report(cause, `rlm: id ${describeJobId(job.id)}: ${text}`);
  }

  /** One line on stderr, above the progress line. */
  line(text: string): void {
    this.#stderr.line(text);
  }

  #record(job: BatchJob, result: BatchResult): void {
    this.#tally.finished(job, result, this.#options.queue !== undefined);
    const store = result.storeFailures
      ? ` · the store failed ${result.storeFailures.count} ${result.storeFailures.count === 1 ? 'time' : 'times'} (first: ${result.storeFailures.first.operation}: ${result.storeFailures.first.message})`
      : '';
    if ('answer' in result) {
      if (this.#stderr.live && store === '') return;
      this.#jobLine(
        job,
        `${this.#describe?.(result) ?? `answered in ${formatDuration(result.durationMs)} · ${formatTokens(result.usage)} · ${formatCost(result.usage)}`}${store}`,
      );
    } else {
      this.#jobLine(job, `failed: ${result.error.message}${store}`);
    }
  }

  #jobLine(job: BatchJob, text: string): void {
    const done = this.#tally.answered + this.#tally.failed;
    this.line(`rlm: [${done}/${this.#tally.total}] id ${describeJobId(job.id)} ${text}`);
  }

  #summary(stopped: boolean, unanswered: number): void {
    const spent = this.#tally.spent();
    const parts = [
      `${this.#tally.answered} answered`,
      `${this.#tally.failed} failed`,
      ...(this.#tally.notRun.length > 0 ? [`${this.#tally.notRun.length} not run`] : []),
      ...(unanswered > 0 ? [`${unanswered} not answered`] : []),
    ];
    this.#stderr.clear();
    this.#io.stderr.write(
      `rlm: batch ${stopped ? 'stopped' : 'done'}: ${parts.join(', ')} · ${formatTokens(spent)} · ${formatCost(spent)} · ${formatDuration(this.#tally.elapsedMs)}${this.#options.outFile === undefined ? '' : ` · results in ${this.#options.outFile}`}\n`,
    );
  }
}
