import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { type ArtifactStore, emptyRunUsage, type RLM, type RunUsage } from '@rlm/core';
import { addRunUsage } from './add-run-usage.js';
import { BatchResultsFile } from './batch-results-file.js';
import { checkToolStoreDirectory } from './check-tool-store-directory.js';
import { createCliModels, createCliRlm } from './create-cli-rlm.js';
import { formatBatchProgress } from './format-batch-progress.js';
import { formatDuration } from './format-runs-table.js';
import { formatCost, formatTokens } from './format-run-totals.js';
import { formatSkippedBinaryFiles } from './format-skipped-binary-files.js';
import { ContextRoot } from './context-root.js';
import { loadContext } from './load-context.js';
import { loadToolsModule } from './load-tools-module.js';
import { openStore } from './open-store.js';
import {
  type BatchOptions,
  defaultBatchConcurrency,
  parseBatchArguments,
} from './parse-batch-arguments.js';
import { type BatchJob, type BatchLineProblem, parseBatchJobs } from './parse-batch-jobs.js';
import { readAnsweredIds } from './read-answered-ids.js';
import { runBatchQuery } from './run-batch-query.js';
import { runQueuedBatch } from './run-queued-batch.js';
import { RunTally } from './run-tally.js';
import { UsageError } from './usage-error.js';
import { StoreFailureWatch } from './watch-store-failures.js';
import { disposeThenClose } from './dispose-then-close.js';

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
replaces the batch's --context or --context-dir.

      --concurrency <n>        jobs run at once (default ${defaultBatchConcurrency})
      --context-root <dir>     the directory a line's own context must be a regular file in,
                               symbolic links resolved (default: the JSONL file's directory);
                               a job whose context is outside it, a device, a FIFO or a
                               /proc file fails saying so, and the batch goes on
  -o, --out <file>             append results here, one JSON line per job as it ends:
                               {id, answer, usage, costUsd, durationMs} or {id, error, usage,
                               durationMs}; rerunning the same command skips the ids answered
                               there and retries the failed ones (default: stdout)
      --max-batch-cost <usd>   once the batch has spent this, no job starts; running ones
                               finish and the rest are reported as not run
      --queue <url>            put the jobs on this Redis server's BullMQ queue instead, for
                               rlm worker --queue <url> processes on any machine to run; this
                               process collects their results (it needs no API key)

Every run flag (--model, --max-cost, --max-model-calls, --store, --tools, --quiet, ...) applies to
each job; see rlm --help. Bad lines are reported with their line number and skipped.
Exit codes: 0 every job answered, 1 some failed, were skipped or not run, 2 usage error,
130 interrupted, 143 terminated.
`;

/**
 * `rlm batch`: runs the jobs of a JSONL file concurrently on one RLM and appends their
 * results as JSON lines. Resolves to the exit code; rejects with {@link UsageError} (and
 * `ContextLoadError` for the batch context) before any model is called.
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
  // With a queue, the workers call the model: they need the key, this process does not.
  const models = options.queue === undefined ? createCliModels(options.run, io.env) : undefined;
  const { jobs, problems } = await readJobs(options.jobsFile);
  for (const problem of problems) {
    io.stderr.write(`rlm: ${options.jobsFile}:${problem.line}: ${problem.message}; skipped\n`);
  }
  const answered =
    options.outFile === undefined
      ? { keys: new Set<string>(), endsMidLine: false }
      : await readAnsweredIds(options.outFile);
  const pending = jobs.filter((job) => !answered.keys.has(job.key));
  const skipped = jobs.length - pending.length;
  if (skipped > 0 && !options.run.quiet) {
    io.stderr.write(
      `rlm: ${skipped} ${skipped === 1 ? 'id is' : 'ids are'} already answered in ${options.outFile}; skipping ${skipped === 1 ? 'it' : 'them'}\n`,
    );
  }
  const results = BatchResultsFile.open(options.outFile, answered.endsMidLine, io.stdout);
  if (options.queue !== undefined) {
    try {
      const outcome = await runQueuedBatch({ ...options, queue: options.queue }, pending, results, {
        stderr: io.stderr,
        onInterrupt: io.onInterrupt ?? subscribeTo('SIGINT'),
        onTerminate: io.onTerminate ?? subscribeTo('SIGTERM'),
      });
      return outcome + (problems.length > 0 && outcome === 0 ? 1 : 0);
    } finally {
      results.close();
    }
  }
  let rlm: RLM | undefined;
  let store: ArtifactStore | undefined;
  try {
    const cli = options.run;
    // A bad root is a usage error before anything runs; each job's context is confined to it.
    await ContextRoot.open(options.contextRoot);
    const context = await loadContext({
      file: cli.contextFile,
      directory: cli.contextDirectory,
      concat: cli.concat,
      ...cli.contextSelection,
      maxBytes: cli.maxContextBytes,
    });
    if (context && context.binaryFiles.length > 0) {
      io.stderr.write(formatSkippedBinaryFiles(context.binaryFiles));
    }
    const tools = cli.toolsModule ? await loadToolsModule(cli.toolsModule) : [];
    store = cli.storePath ? await openStore(cli.storePath) : undefined;
    if (cli.toolStore) await checkToolStoreDirectory(cli.toolStore, { writable: true });
    const watch = new StoreFailureWatch((failure) => {
      io.stderr.write(
        `rlm: the store failed (${failure.operation}): ${failure.message}; the batch goes on, but what it stores from now may be lost\n`,
      );
    });
    rlm = createCliRlm(cli, models ?? createCliModels(cli, io.env), {
      tools,
      artifacts: store ? watch.wrap(store) : undefined,
      // Each job in its own sandbox, several at once.
      persistent: false,
    });
    const run = new BatchRun(rlm, options, io, results, store, context?.value);
    const outcome = await run.run(pending);
    return outcome + (problems.length > 0 && outcome === 0 ? 1 : 0);
  } finally {
    results.close();
    await disposeThenClose(rlm, store);
  }
}

/** Reads and parses the JSONL file; a line whose own context file is missing is a problem. */
async function readJobs(
  file: string,
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
  const parsed = parseBatchJobs(text, path.dirname(path.resolve(file)));
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
          message: `id ${job.key}: no context file ${job.contextFile}`,
        });
        continue;
      }
    }
    jobs.push(job);
  }
  problems.sort((a, b) => a.line - b.line);
  return { jobs, problems };
}

/** Exit codes after a signal, as shells report them. */
const interruptedExitCode = 130;
const terminatedExitCode = 143;

/** One invocation's jobs running on one RLM: the pool, the counts, the output. */
class BatchRun {
  readonly #rlm: RLM;
  readonly #options: BatchOptions;
  readonly #io: BatchCommandIo;
  readonly #results: BatchResultsFile;
  readonly #store: ArtifactStore | undefined;
  readonly #batchContext: unknown;
  readonly #started = performance.now();
  /** Each per-line context, loaded once while jobs still need it. */
  readonly #contexts = new Map<string, { value: Promise<unknown> | undefined; uses: number }>();
  readonly #running = new Map<AbortController, RunTally>();
  #finishedUsage: RunUsage = emptyRunUsage();
  #answered = 0;
  #failed = 0;
  #total = 0;
  #capReached = false;
  /** Set by the first SIGINT or SIGTERM: its exit code. */
  #stopped: number | undefined;
  #progressShown = false;

  constructor(
    rlm: RLM,
    options: BatchOptions,
    io: BatchCommandIo,
    results: BatchResultsFile,
    store: ArtifactStore | undefined,
    batchContext: unknown,
  ) {
    this.#rlm = rlm;
    this.#options = options;
    this.#io = io;
    this.#results = results;
    this.#store = store;
    this.#batchContext = batchContext;
  }

  /** Runs `jobs`, at most `--concurrency` at once; resolves to the exit code. */
  async run(jobs: readonly BatchJob[]): Promise<number> {
    this.#total = jobs.length;
    for (const job of jobs) {
      if (job.contextFile === undefined) continue;
      const entry = this.#contexts.get(job.contextFile);
      if (entry) entry.uses++;
      else this.#contexts.set(job.contextFile, { value: undefined, uses: 1 });
    }
    let next = 0;
    const worker = async () => {
      while (this.#stopped === undefined) {
        if (this.#overCap()) {
          this.#capReached = true;
          return;
        }
        const job = jobs[next++];
        if (job === undefined) return;
        await this.#runJob(job);
      }
    };
    let quitNow: (exitCode: number) => void = () => {};
    const forceQuit = new Promise<number>((resolve) => {
      quitNow = resolve;
    });
    const stop = (exitCode: number, signal: string) => {
      if (this.#stopped !== undefined) {
        quitNow(this.#stopped);
        return;
      }
      this.#stopped = exitCode;
      this.#line(
        `rlm: ${signal}: stopping ${this.#running.size} running ${this.#running.size === 1 ? 'job' : 'jobs'} (not written, so a rerun runs them); again to quit at once`,
      );
      for (const controller of this.#running.keys()) controller.abort();
    };
    const unsubscribe = [
      (this.#io.onInterrupt ?? subscribeTo('SIGINT'))(() =>
        stop(interruptedExitCode, 'interrupted'),
      ),
      (this.#io.onTerminate ?? subscribeTo('SIGTERM'))(() =>
        stop(terminatedExitCode, 'terminated'),
      ),
    ];
    const ticker = this.#live() ? setInterval(() => this.#showProgress(), 1000) : undefined;
    ticker?.unref();
    try {
      const workers = Array.from(
        { length: Math.min(this.#options.concurrency, jobs.length) },
        worker,
      );
      const finished = Promise.all(workers);
      const forced = await Promise.race([finished.then(() => undefined), forceQuit]);
      if (forced !== undefined) return forced;
    } finally {
      clearInterval(ticker);
      for (const off of unsubscribe) off();
      this.#clearProgress();
    }
    const notRun = jobs.slice(Math.min(next, jobs.length));
    if (this.#capReached && notRun.length > 0) {
      const ids = notRun
        .slice(0, 10)
        .map((job) => job.key)
        .join(', ');
      this.#line(
        `rlm: the batch spent ${formatCost(this.#spent())} of --max-batch-cost $${this.#options.maxBatchCostUsd}: ${notRun.length} ${notRun.length === 1 ? 'job' : 'jobs'} not run (${ids}${notRun.length > 10 ? ', …' : ''}); rerun the same command with a higher cap to run them`,
      );
    }
    this.#summary(this.#stopped === undefined ? notRun.length : 0);
    if (this.#stopped !== undefined) return this.#stopped;
    return this.#failed > 0 || notRun.length > 0 ? 1 : 0;
  }

  async #runJob(job: BatchJob): Promise<void> {
    const cli = this.#options.run;
    const controller = new AbortController();
    const tally = new RunTally();
    this.#running.set(controller, tally);
    this.#showProgress();
    const { result } = await runBatchQuery(this.#rlm, job, {
      context: () =>
        job.contextFile === undefined ? this.#batchContext : this.#jobContext(job.contextFile),
      signal: controller.signal,
      tally,
      store: this.#store,
      resume: false,
      report: (line) => this.#line(line),
      model: cli.model,
      subModel: cli.subModel,
    });
    this.#running.delete(controller);
    if (job.contextFile !== undefined) this.#releaseContext(job.contextFile);
    this.#finishedUsage = addRunUsage(this.#finishedUsage, result.usage);
    // A job stopped by a signal is not written: a rerun runs it.
    if (this.#stopped === undefined || 'answer' in result) {
      this.#results.append(result);
      if ('answer' in result) {
        this.#answered++;
        this.#jobLine(
          job,
          `answered in ${formatDuration(result.durationMs)} · ${formatTokens(result.usage)} · ${formatCost(result.usage)}`,
        );
      } else {
        this.#failed++;
        this.#jobLine(job, `failed: ${result.error.message}`, true);
      }
    }
    this.#showProgress();
  }

  /**
   * The job's own context, loaded on first use and dropped after its last: only a regular file
   * under `--context-root`, else the job fails saying why.
   */
  #jobContext(file: string): Promise<unknown> {
    const entry = this.#contexts.get(file)!;
    if (entry.value === undefined) {
      entry.value = ContextRoot.open(this.#options.contextRoot)
        .then((root) => loadContext({ file, root, maxBytes: this.#options.run.maxContextBytes }))
        .then((loaded) => loaded?.value);
      // A failure reaches every job that awaits it; none is left unhandled.
      entry.value.catch(() => {});
    }
    return entry.value;
  }

  #releaseContext(file: string): void {
    const entry = this.#contexts.get(file);
    if (entry && --entry.uses <= 0) this.#contexts.delete(file);
  }

  /** Usage of the finished jobs plus what the running ones have spent so far. */
  #spent(): RunUsage {
    let total = this.#finishedUsage;
    for (const tally of this.#running.values()) total = addRunUsage(total, tally.snapshot().usage);
    return total;
  }

  #overCap(): boolean {
    const cap = this.#options.maxBatchCostUsd;
    return cap !== undefined && (this.#spent().costUsd ?? 0) >= cap;
  }

  /** A live progress line: on a terminal, unless `--quiet`. */
  #live(): boolean {
    return Boolean(this.#io.stderr.isTTY) && !this.#options.run.quiet;
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

  /** One line on stderr, above the progress line. */
  #line(text: string): void {
    this.#clearProgress();
    this.#io.stderr.write(`${text}\n`);
    this.#showProgress();
  }

  /**
   * A job's outcome: on a terminal only failures (the progress line counts the rest); piped or
   * `--quiet`, one plain line per job.
   */
  #jobLine(job: BatchJob, text: string, failure = false): void {
    if (this.#live() && !failure) return;
    const done = this.#answered + this.#failed;
    this.#line(`rlm: [${done}/${this.#total}] id ${job.key} ${text}`);
  }

  #summary(notRun: number): void {
    const spent = this.#spent();
    const parts = [
      `${this.#answered} answered`,
      `${this.#failed} failed`,
      ...(notRun > 0 ? [`${notRun} not run`] : []),
    ];
    this.#io.stderr.write(
      `rlm: batch ${this.#stopped === undefined ? 'done' : 'stopped'}: ${parts.join(', ')} · ${formatTokens(spent)} · ${formatCost(spent)} · ${formatDuration(performance.now() - this.#started)}${this.#options.outFile === undefined ? '' : ` · results in ${this.#options.outFile}`}\n`,
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

function subscribeTo(signal: NodeJS.Signals) {
  return (listener: () => void) => {
    process.on(signal, listener);
    return () => {
      process.off(signal, listener);
    };
  };
}
