import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { type ArtifactStore, emptyRunUsage, type RlmEvent, type RunUsage } from '@rlm/core';
import { addRunUsage } from '../../jobs/add-run-usage.js';
import { BatchResultsFile } from './batch-results-file.js';
import { checkQueueReachable } from '../../queue/check-queue-reachable.js';
import { createCliModels, createCliRlmFactory } from '../../rlm/create-cli-rlm.js';
import { describeJobId, describeJobIds } from '../../jobs/describe-job-id.js';
import { disposeThenClose } from '../../dispose-then-close.js';
import { formatBatchProgress } from './format-batch-progress.js';
import { formatModelRetry } from '../../rlm/format-model-retry.js';
import { formatCost, formatTokens } from '../../output/format-run-totals.js';
import { formatDuration } from '../../output/format-runs-table.js';
import { ModelCallNames } from '../../rlm/model-call-names.js';
import { openBatchResources } from './open-batch-resources.js';
import {
  type BatchOptions,
  defaultBatchConcurrency,
  defaultMaxBatchArtifactBytes,
  defaultStallTimeoutMs,
  parseBatchArguments,
} from './parse-batch-arguments.js';
import {
  type BatchJob,
  type BatchLineProblem,
  defaultMaxQueryChars,
  parseBatchJobs,
} from '../../jobs/parse-batch-jobs.js';
import { parseQueueUrl } from '../../queue/parse-queue-url.js';
import { queueBatchJobs } from './queue-batch-jobs.js';
import { causeOf, RateLimitedLog } from '../../queue/rate-limited-log.js';
import { type BatchOutcome, runBatchJobs } from './run-batch-jobs.js';
import type { BatchResult } from '../../jobs/run-batch-query.js';
import type { RunTally } from '../../rlm/run-tally.js';
import { subscribeToSignal } from '../../subscribe-to-signal.js';
import { UsageError } from '../../usage-error.js';
import type { StoreFailure } from '../../store/watch-store-failures.js';

/** What `rlm batch` reads and writes. */
export interface BatchCommandIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Results, when there is no `--out`. */
  readonly stdout: NodeJS.WritableStream;
  /** Progress, skipped lines, failures and the closing summary. */
  readonly stderr: NodeJS.WritableStream & { readonly isTTY?: boolean; readonly columns?: number };
  /** Subscribes to interrupts (Ctrl-C); defaults to the process's `SIGINT`. */
  readonly onInterrupt?: (listener: () => void) => () => void;
  /** Subscribes to termination requests; defaults to the process's `SIGTERM`. */
  readonly onTerminate?: (listener: () => void) => () => void;
}

const batchHelp = `Usage: rlm batch <queries.jsonl> [--context <file> | --context-dir <dir>]
                 [--concurrency <n>] [--out <results.jsonl>] [--max-batch-cost <usd>]
                 [--context-root <dir>] [run flags]

Runs every query of a JSONL file, one {"id": ..., "query": "...", "context"?: "<file>"} a line,
several at once in this process. A line's own context (relative to the JSONL file's directory)
replaces the batch's --context or --context-dir. Ids are compared as strings (1 and "1" are
the same id).

      --concurrency <n>        jobs run at once (default ${defaultBatchConcurrency})
      --context-root <dir>     the directory a line's own context must be a regular file in,
                               symbolic links resolved (default: the JSONL file's directory);
                               a job whose context is outside it, a device, a FIFO or a
                               /proc file fails saying so, and the batch goes on
  -o, --out <file>             append results here, one JSON line per job as it ends:
                               {id, answer, usage, costUsd, durationMs} or {id, error, usage,
                               durationMs}; rerunning the same command skips the ids answered
                               there and retries the failed ones (default: stdout). One batch
                               writes a file at a time (<file>.lock beside it)
      --max-batch-cost <usd>   once the batch has spent this, no job starts; running ones
                               finish and the rest are reported as not run
      --max-query-chars <n>    a longer query is refused for its line (default ${defaultMaxQueryChars.toLocaleString('en-US')})
      --max-batch-artifact-bytes <size>
                               what all the jobs may store() together (default ${defaultMaxBatchArtifactBytes / 1024 ** 3} GiB)
      --artifact-ttl <time>    with --store redis://...: every key a job writes expires this
                               long after its last write (default 7d)
      --queue <url>            put the jobs on this Redis server's BullMQ queue instead, for
                               rlm worker --queue <url> processes on any machine to run; this
                               process collects their results (it needs no API key)
      --stall-timeout <time>   with --queue: stop waiting, saying why, once no worker has made
                               progress on the batch for this long (default ${defaultStallTimeoutMs / 60_000}m)

Every run flag (--model, --max-cost, --max-model-calls, --store, --store-errors,
--connect-timeout, --tools, --quiet, ...) applies to each job; see rlm --help. Bad lines are
reported with their line number and skipped.
Exit codes: 0 every job answered, 1 some failed, were skipped, not run or not written, 2 usage
error (an unreachable store or queue included), 3 every job answered but the store failed
during some (--store-errors warn: 0), 130 interrupted, 143 terminated.
`;

/** Exit codes after a signal, as shells report them. */
const interruptedExitCode = 130;
const terminatedExitCode = 143;
/** Exit code of a batch whose jobs all answered but whose store failed under some. */
const storeFailedExitCode = 3;

/**
 * `rlm batch`: runs the jobs of a JSONL file (in this process, or through a Redis queue) and
 * appends their results as JSON lines. Resolves to the exit code; rejects with
 * {@link UsageError} (and `ContextLoadError` for the batch context) before any model is called.
 */
export async function runBatchCommand(
  argv: readonly string[],
  io: BatchCommandIo,
): Promise<number> {
  const command = parseBatchArguments(argv, io.env);
  if (command.kind === 'help') {
    io.stdout.write(batchHelp);
    return 0;
  }
  const options = command.options;
  const cli = options.run;
  // With a queue, the workers call the model: they need the key, this process does not.
  const models = options.queue === undefined ? await createCliModels(cli, io.env) : undefined;
  const { jobs, problems } = await readJobs(options.jobsFile, options.maxQueryChars);
  for (const problem of problems) {
    io.stderr.write(`rlm: ${options.jobsFile}:${problem.line}: ${problem.message}; skipped\n`);
  }
  const queue =
    options.queue === undefined
      ? undefined
      : { url: options.queue, connection: parseQueueUrl(options.queue) };
  if (queue) await checkQueueReachable(queue.connection, queue.url, cli.connectTimeoutMs);
  const { results, opening } = BatchResultsFile.open(options.outFile, io.stdout);
  let store: ArtifactStore | undefined;
  const output = new BatchOutput(options, io, results, problems.length);
  try {
    if (opening.tookOverFrom) {
      io.stderr.write(
        `rlm: took over --out ${options.outFile} from process ${opening.tookOverFrom.pid} on ${opening.tookOverFrom.hostname}, which is gone\n`,
      );
    }
    if (opening.removedTornBytes > 0) {
      io.stderr.write(
        `rlm: the last line of ${options.outFile} was cut short (a batch stopped mid-write); removed its ${opening.removedTornBytes} bytes: its job runs again\n`,
      );
    }
    const pending = jobs.filter((job) => !opening.answered.has(job.key));
    const skipped = jobs.length - pending.length;
    if (skipped > 0 && !cli.quiet) {
      io.stderr.write(
        `rlm: ${skipped} ${skipped === 1 ? 'id is' : 'ids are'} already answered in ${options.outFile}; skipping ${skipped === 1 ? 'it' : 'them'}\n`,
      );
    }
    if (queue) {
      return await output.consume(pending, (signal) =>
        queueBatchJobs(pending, {
          queue: queue.url,
          connection: queue.connection,
          jobsFile: options.jobsFile,
          cli,
          maxBatchCostUsd: options.maxBatchCostUsd,
          maxArtifactBytes: options.maxBatchArtifactBytes,
          stallTimeoutMs: options.stallTimeoutMs,
          signal,
          report: (line) => output.line(line),
        }),
      );
    }
    const { context, contextRoot, tools, ...resources } = await openBatchResources(
      options,
      io.stderr,
    );
    store = resources.store;
    const createRlm = createCliRlmFactory(cli, models!, { tools, persistent: false });
    const batchStore = store;
    return await output.consume(pending, (signal) =>
      runBatchJobs(pending, {
        createRlm,
        store: batchStore,
        concurrency: options.concurrency,
        maxBatchCostUsd: options.maxBatchCostUsd,
        maxArtifactBytes: options.maxBatchArtifactBytes,
        context: context?.value,
        directoryContext: { concat: cli.concat, ...cli.contextSelection },
        contextRoot,
        maxContextBytes: cli.maxContextBytes,
        model: cli.model,
        subModel: cli.subModel,
        signal,
        onStart: (job, tally) => output.started(job, tally),
        onEnd: (job) => output.ended(job),
        onEvent: (job, event) => output.event(job, event),
        onStoreFailure: (job, failure) => output.storeFailed(job, failure),
        report: (job, line) => output.jobNotice(job, line.replace(/^rlm: /, ''), causeOf(line)),
      }),
    );
  } finally {
    output.closeResults();
    await disposeThenClose(undefined, store);
  }
}

/** Reads and parses the JSONL file; a line whose own context file is missing is a problem. */
async function readJobs(
  file: string,
  maxQueryChars: number,
): Promise<{ jobs: readonly BatchJob[]; problems: readonly BatchLineProblem[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'a directory, not a file'
          : error instanceof Error
            ? error.message
            : String(error);
    throw new UsageError(
      `cannot read the batch ${file}: ${reason}; pass a JSONL file of {"id": ..., "query": "..."} lines`,
      { cause: error },
    );
  }
  const parsed = parseBatchJobs(text, path.dirname(path.resolve(file)), { maxQueryChars });
  const problems = [...parsed.problems];
  const jobs: BatchJob[] = [];
  const isFile = new Map<string, Promise<boolean>>();
  for (const job of parsed.jobs) {
    if (job.contextFile !== undefined) {
      let check = isFile.get(job.contextFile);
      if (check === undefined) {
        check = stat(job.contextFile).then(
          (stats) => !stats.isDirectory(),
          () => false,
        );
        isFile.set(job.contextFile, check);
      }
      if (!(await check)) {
        problems.push({
          line: job.line,
          message: `id ${describeJobId(job.id)}: no context file ${job.contextFile}`,
        });
        continue;
      }
    }
    jobs.push(job);
  }
  problems.sort((a, b) => a.line - b.line);
  return { jobs, problems };
}

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
  readonly #started = performance.now();
  readonly #running = new Map<BatchJob, RunTally>();
  /** What each running job's model calls are, for its retry lines. */
  readonly #callNames = new Map<BatchJob, ModelCallNames>();
  readonly #notices: RateLimitedLog;
  #total = 0;
  #answered = 0;
  #failed = 0;
  readonly #notRun: BatchJob[] = [];
  readonly #storeFailed: { readonly job: BatchJob; readonly first: StoreFailure }[] = [];
  #finishedUsage: RunUsage = emptyRunUsage();
  #progressShown = false;
  #resultsClosed = false;

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
    this.#total = jobs.length;
    const stopper = new AbortController();
    let stoppedWith: number | undefined;
    let quitNow: (exitCode: number) => void = () => {};
    const forced = new Promise<number>((resolve) => {
      quitNow = resolve;
    });
    const stop = (exitCode: number, signal: string) => {
      if (stoppedWith !== undefined) {
        quitNow(stoppedWith);
        return;
      }
      stoppedWith = exitCode;
      this.line(
        this.#options.queue === undefined
          ? `rlm: ${signal}: stopping ${this.#running.size} running ${this.#running.size === 1 ? 'job' : 'jobs'} (not written, so a rerun runs them); again to quit at once`
          : `rlm: ${signal}: no longer waiting (again to quit at once)`,
      );
      stopper.abort();
    };
    const unsubscribe = [
      (this.#io.onInterrupt ?? subscribeToSignal('SIGINT'))(() =>
        stop(interruptedExitCode, 'interrupted'),
      ),
      (this.#io.onTerminate ?? subscribeToSignal('SIGTERM'))(() =>
        stop(terminatedExitCode, 'terminated'),
      ),
    ];
    const ticker = this.#live() ? setInterval(() => this.#showProgress(), 1000) : undefined;
    ticker?.unref();
    const written = new Set<BatchJob>();
    let writeFailure: { readonly job: BatchJob; readonly error: unknown } | undefined;
    try {
      const outcomes = start(stopper.signal);
      const drained = (async () => {
        for await (const outcome of outcomes) {
          if (outcome.kind === 'not-run') {
            this.#notRun.push(outcome.job);
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
      const quit = await Promise.race([drained.then(() => undefined), forced]);
      if (quit !== undefined) return quit;
    } finally {
      clearInterval(ticker);
      for (const off of unsubscribe) off();
      this.#notices.flush();
      this.#clearProgress();
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
    if (this.#notRun.length > 0) {
      this.line(
        `rlm: the batch spent ${formatCost(this.#spent())} of --max-batch-cost $${this.#options.maxBatchCostUsd}: ${this.#notRun.length} ${this.#notRun.length === 1 ? 'job' : 'jobs'} not run (${describeJobIds(this.#notRun.map((job) => job.id))}); rerun the same command with a higher cap to run them`,
      );
    }
    const missing = writeFailure === undefined ? unanswered.length : 0;
    if (stoppedWith !== undefined && missing > 0) {
      const ids = describeJobIds(unanswered.map((job) => job.id));
      this.line(
        this.#options.queue === undefined
          ? `rlm: ${missing} ${missing === 1 ? 'id is' : 'ids are'} not answered (${ids}): rerun the same command to run ${missing === 1 ? 'it' : 'them'}`
          : `rlm: stopped waiting; ${missing} ${missing === 1 ? 'job stays' : 'jobs stay'} on the queue (ids ${ids}): rerun the same command to collect ${missing === 1 ? 'its result' : 'their results'}`,
      );
    }
    this.#summary(stoppedWith !== undefined, stoppedWith === undefined ? missing : 0);
    if (stoppedWith !== undefined) return stoppedWith;
    if (
      writeFailure !== undefined ||
      syncFailure ||
      missing > 0 ||
      this.#failed > 0 ||
      this.#notRun.length > 0 ||
      this.#problems > 0
    ) {
      return 1;
    }
    if (this.#storeFailed.length > 0 && this.#options.run.storeErrors === 'fail') {
      const { first } = this.#storeFailed[0]!;
      this.line(
        `rlm: every job answered, but the store failed during ${this.#storeFailed.length} of them (first: ${first.operation}: ${first.message}), so their state was not fully saved (storeFailures in their result lines); fix the store and rerun them, or pass --store-errors warn`,
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
    this.#running.set(job, tally);
    this.#callNames.set(job, new ModelCallNames());
    this.#showProgress();
  }

  ended(job: BatchJob): void {
    const tally = this.#running.get(job);
    if (tally) this.#finishedUsage = addRunUsage(this.#finishedUsage, tally.snapshot().usage);
    this.#running.delete(job);
    this.#callNames.delete(job);
    this.#showProgress();
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
    this.#clearProgress();
    this.#io.stderr.write(`${text}\n`);
    this.#showProgress();
  }

  #record(job: BatchJob, result: BatchResult): void {
    if (result.storeFailures) this.#storeFailed.push({ job, first: result.storeFailures.first });
    if (this.#options.queue !== undefined) {
      this.#finishedUsage = addRunUsage(this.#finishedUsage, result.usage);
    }
    const store = result.storeFailures
      ? ` · the store failed ${result.storeFailures.count} ${result.storeFailures.count === 1 ? 'time' : 'times'} (first: ${result.storeFailures.first.operation}: ${result.storeFailures.first.message})`
      : '';
    if ('answer' in result) {
      this.#answered++;
      if (this.#live() && store === '') return;
      this.#jobLine(
        job,
        `${this.#describe?.(result) ?? `answered in ${formatDuration(result.durationMs)} · ${formatTokens(result.usage)} · ${formatCost(result.usage)}`}${store}`,
      );
    } else {
      this.#failed++;
      this.#jobLine(job, `failed: ${result.error.message}${store}`);
    }
  }

  #jobLine(job: BatchJob, text: string): void {
    const done = this.#answered + this.#failed;
    this.line(`rlm: [${done}/${this.#total}] id ${describeJobId(job.id)} ${text}`);
  }

  /** Usage of the finished jobs plus what the running ones have spent so far. */
  #spent(): RunUsage {
    let total = this.#finishedUsage;
    for (const tally of this.#running.values()) total = addRunUsage(total, tally.snapshot().usage);
    return total;
  }

  /** A live progress line: on a terminal, for jobs run here, unless `--quiet`. */
  #live(): boolean {
    return (
      Boolean(this.#io.stderr.isTTY) &&
      !this.#options.run.quiet &&
      this.#options.queue === undefined
    );
  }

  #showProgress(): void {
    if (!this.#live()) return;
    const spent = this.#spent();
    const line = `rlm batch: ${formatBatchProgress({
      total: this.#total,
      answered: this.#answered,
      failed: this.#failed,
      running: this.#running.size,
      tokens: totalTokens(spent),
      costUsd: spent.costUsd,
      elapsedMs: performance.now() - this.#started,
    })}`;
    const width = this.#io.stderr.columns || 120;
    this.#io.stderr.write(`\r\u001b[2K${line.slice(0, Math.max(10, width - 1))}`);
    this.#progressShown = true;
  }

  #clearProgress(): void {
    if (!this.#progressShown) return;
    this.#io.stderr.write('\r\u001b[2K');
    this.#progressShown = false;
  }

  #summary(stopped: boolean, unanswered: number): void {
    const spent = this.#spent();
    const parts = [
      `${this.#answered} answered`,
      `${this.#failed} failed`,
      ...(this.#notRun.length > 0 ? [`${this.#notRun.length} not run`] : []),
      ...(unanswered > 0 ? [`${unanswered} not answered`] : []),
    ];
    this.#clearProgress();
    this.#io.stderr.write(
      `rlm: batch ${stopped ? 'stopped' : 'done'}: ${parts.join(', ')} · ${formatTokens(spent)} · ${formatCost(spent)} · ${formatDuration(performance.now() - this.#started)}${this.#options.outFile === undefined ? '' : ` · results in ${this.#options.outFile}`}\n`,
    );
  }
}

function totalTokens(usage: RunUsage): number {
  return (
    usage.inputTokens +
    usage.outputTokens +
    (usage.cacheReadTokens ?? 0) +
    (usage.cacheWriteTokens ?? 0)
  );
}
