import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { RunLease, RunLeaseHeldError } from '@rlm/artifacts';
import {
  type ArtifactStore,
  defaultMaxConcurrency,
  hashContext,
  type RLM,
  type RlmEvent,
  runKey,
  Utf8Text,
  formatErrorLine,
} from '@rlm/core';
import type { CliOutput, RunCliOptions } from '../../cli-io.js';
import { cliVersion } from '../../cli-version.js';
import type { LoadedContext } from '../../context/load-context.js';
import type { JsonRunReport } from '../../output/format-answer.js';
import { formatBytes } from '../../output/format-bytes.js';
import { jsonFailureReport } from '../../output/json-failure-report.js';
import { reportFailure } from '../../output/report-command-error.js';
import { formatModelRetry } from '../../rlm/format-model-retry.js';
import { ModelCallNames } from '../../rlm/model-call-names.js';
import { createRunTracer } from '../../rlm/record-run-trace.js';
import { runQuery } from '../../rlm/run-query.js';
import { RunTally } from '../../rlm/run-tally.js';
import type { CliOptions } from '../../run-options/run-options.js';
import type { StoreFailureWatch } from '../../store/watch-store-failures.js';
import { subscribeToSignal } from '../../subscribe-to-signal.js';
import { UsageError } from '../../usage-error.js';
import type { AnswerSink } from './answer-sink.js';
import { LiveStatus } from './live-status.js';
import { createEventRenderer } from './render-events.js';
import { StoreFailedError } from './store-failed-error.js';

/** Exit code of a run whose answer was printed but whose store failed (`--store-errors fail`). */
const storeFailedExitCode = 3;

/** Exit code after SIGTERM: 128 + 15, as shells report it. */
const terminatedExitCode = 143;

/** Words that end the REPL. */
const exitWords = new Set(['exit', 'quit', '.exit']);

/** One RLM, its context and its output, across the queries of one invocation. */
export class Session {
  readonly #rlm: RLM;
  readonly #context: LoadedContext | undefined;
  readonly #cli: CliOptions;
  readonly #io: RunCliOptions;
  readonly #answers: AnswerSink;
  readonly #forceQuit: (exitCode: number) => void;
  readonly #render: (event: RlmEvent) => void;
  /** The status line on a terminal (not with --quiet): what the run waits on, live. */
  readonly #live: LiveStatus | undefined;
  readonly #storage: SessionStorage;
  /** The running query's abort controller. */
  #current: AbortController | undefined;
  /** Set by SIGTERM: the running query ends with exit code 143. */
  #terminated = false;

  constructor(
    rlm: RLM,
    context: LoadedContext | undefined,
    cli: CliOptions,
    io: RunCliOptions,
    answers: AnswerSink,
    forceQuit: (exitCode: number) => void,
    storage: SessionStorage,
  ) {
    this.#rlm = rlm;
    this.#storage = storage;
    this.#context = context;
    this.#cli = cli;
    this.#answers = answers;
    this.#forceQuit = forceQuit;
    const { env } = io;
    const terminal = io.stderr;
    const width = (terminal.isTTY && terminal.columns) || undefined;
    const live =
      terminal.isTTY && !cli.quiet ? new LiveStatus(terminal, width ? { width } : {}) : undefined;
    this.#live = live;
    // Every line on stderr goes above the status line.
    const stderr: CliOutput = live
      ? Object.assign(
          new Writable({
            write(chunk: Buffer, _encoding, done) {
              live.write(chunk.toString());
              done();
            },
          }),
          { isTTY: terminal.isTTY, columns: terminal.columns },
        )
      : terminal;
    this.#io = { ...io, stderr };
    const color = Boolean(terminal.isTTY) && !env.NO_COLOR;
    const render = createEventRenderer({
      write: (text) => stderr.write(text),
      color,
      width,
      ...(live ? { status: (text: string | undefined) => live.set(text) } : {}),
      maxConcurrency: cli.maxConcurrency ?? defaultMaxConcurrency,
      // On a terminal the model's prose shows as it streams in.
      streamText: Boolean(terminal.isTTY),
    });
    this.#render = cli.quiet ? () => {} : render;
    if (!cli.quiet) {
      const line = `rlm ${cliVersion} · ${cli.model.provider}:${cli.model.modelId} · ${describeContext(context, cli)}`;
      stderr.write(color ? `\u001b[2m${line}\u001b[22m\n` : `${line}\n`);
    }
  }

  /** One query from the command line. */
  async runOnce(query: string): Promise<number> {
    const unsubscribe = this.#subscribe(() => this.#forceQuit(130));
    try {
      return await this.#answer(query);
    } finally {
      unsubscribe();
    }
  }

  /** Queries typed at a `› ` prompt on stderr, until `exit` or Ctrl-D. */
  async runRepl(): Promise<number> {
    const { stdin, stderr } = this.#io;
    const lines = createInterface({
      input: stdin,
      output: stderr,
      // Line editing and Ctrl-C as a key need a terminal on both ends; with stderr redirected
      // the terminal's own line discipline edits and Ctrl-C arrives as SIGINT.
      terminal: Boolean(stderr.isTTY),
      prompt: '› ',
      historySize: 1000,
    });
    const onIdleInterrupt = () => {
      const hadText = lines.line !== '';
      lines.write(null, { ctrl: true, name: 'e' });
      lines.write(null, { ctrl: true, name: 'u' });
      stderr.write(hadText ? '\n' : '\n(type exit or press Ctrl-D to quit)\n');
      lines.prompt();
    };
    let closed = false;
    lines.on('close', () => {
      closed = true;
    });
    lines.on('SIGINT', () => this.#interrupt(onIdleInterrupt));
    const unsubscribe = this.#subscribe(onIdleInterrupt);
    try {
      lines.prompt();
      for await (const line of lines) {
        const query = line.trim();
        if (exitWords.has(query)) break;
        if (query !== '') await this.#answer(query);
        if (!closed) lines.prompt();
      }
      if (closed) stderr.write('\n');
      return 0;
    } finally {
      unsubscribe();
      lines.close();
    }
  }

  /** One query per non-empty line of piped stdin; stops at the first failure. */
  async runPipe(): Promise<number> {
    const lines = createInterface({ input: this.#io.stdin, terminal: false, crlfDelay: Infinity });
    const unsubscribe = this.#subscribe(() => this.#forceQuit(130));
    let queries = 0;
    try {
      for await (const line of lines) {
        const query = line.trim();
        if (query === '') continue;
        queries++;
        const exitCode = await this.#answer(query);
        if (exitCode !== 0) return exitCode;
      }
    } finally {
      unsubscribe();
      lines.close();
    }
    if (queries === 0) {
      throw new UsageError(
        'no query: pass one as an argument, or pipe queries on stdin, one per line',
      );
    }
    return 0;
  }

  /** Runs one query and prints its answer or its failure; resolves to an exit code. */
  async #answer(query: string): Promise<number> {
    const { stderr } = this.#io;
    const controller = new AbortController();
    this.#current = controller;
    const tally = new RunTally();
    const modelCalls = new ModelCallNames();
    const tracer = createRunTracer({
      store: this.#storage.store,
      traceFile: this.#cli.traceFile,
      report: (line) => stderr.write(`${line}\n`),
      announce: !this.#cli.quiet,
      metadata: { cli: cliVersion, model: this.#cli.model, subModel: this.#cli.subModel },
    });
    let lease: RunLease | undefined;
    let report: JsonRunReport;
    this.#storage.watch.take();
    try {
      lease = await this.#takeLease(query, controller);
      report = await runQuery(this.#rlm, query, this.#context?.value, {
        signal: controller.signal,
        onEvent: (event) => {
          tally.observe(event);
          tracer.record(event);
          modelCalls.observe(event);
          if (event.type === 'model-retry') {
            stderr.write(formatModelRetry(event, modelCalls.nameOf(event)));
          } else this.#render(event);
        },
        resume: this.#cli.resume,
      });
      await tracer.finish();
    } catch (error) {
      // A run another process holds was never started here: it has no trace of its own.
      if (!isRunLeaseHeld(error)) await tracer.finish(error);
      const exitCode = this.#failureExitCode(error);
      const written = this.#answers.failure(jsonFailureReport(error, { spent: tally.snapshot() }));
      return await written.then(
        () => exitCode,
        (writeError: unknown) => Math.max(exitCode, reportFailure(writeError, stderr)),
      );
    } finally {
      this.#live?.stop();
      this.#current = undefined;
      await lease?.release().catch(() => {});
    }
    try {
      await this.#answers.answer(report);
      return this.#storeOutcome();
    } catch (error) {
      return reportFailure(error, stderr);
    }
  }

  /** Reports a failed query on stderr and picks its exit code. */
  #failureExitCode(error: unknown): number {
    const { stderr } = this.#io;
    if (this.#terminated) return terminatedExitCode;
    if (isRunLeaseHeld(error)) {
      stderr.write(`rlm: ${describeHeldRun(error)}\n`);
      return 2;
    }
    if (StoreFailedError.isInstance(error)) {
      stderr.write(`rlm: ${error.message}\n`);
      return storeFailedExitCode;
    }
    return reportFailure(error, stderr);
  }

  /**
   * Takes the run's lease (one writer per run) when there is a store. A store that cannot even
   * hold the lease is a store failure: with `--store-errors warn` the run goes on without one.
   */
  async #takeLease(query: string, controller: AbortController): Promise<RunLease | undefined> {
    const { store } = this.#storage;
    if (store === undefined) return undefined;
    const { acquireRunLease, RunLeaseHeldError } = await import('@rlm/artifacts');
    const key = runKey(query, hashContext(this.#context?.value));
    try {
      const lease = await acquireRunLease(store, key, {
        onLost: (error) => {
          this.#io.stderr.write(`rlm: ${describeHeldRun(error)}; stopping this one\n`);
          controller.abort(error);
        },
      });
      if (lease.tookOverFrom && !this.#cli.quiet) {
        this.#io.stderr.write(
          `rlm: took over the run from process ${lease.tookOverFrom.pid} on ${lease.tookOverFrom.hostname}, which is gone\n`,
        );
      }
      return lease;
    } catch (error) {
      if (RunLeaseHeldError.isInstance(error)) throw error;
      const message = formatErrorLine(error);
      if (this.#cli.storeErrors === 'warn') {
        this.#io.stderr.write(
          `rlm: cannot take the run's lease, running without one: ${message}\n`,
        );
        return undefined;
      }
      throw new StoreFailedError(
        `the store failed before the run started: ${message}; fix the store, pass another --store, or pass --store-errors warn`,
        { cause: error },
      );
    }
  }

  /** 0, or 3 with one line when the store failed during the run and the policy is `fail`. */
  #storeOutcome(): number {
    const failures = this.#storage.watch.take();
    if (failures.length === 0 || this.#cli.storeErrors === 'warn') return 0;
    const first = failures[0]!;
    this.#io.stderr.write(
      `rlm: the answer is printed, but the store failed ${failures.length} ${failures.length === 1 ? 'time' : 'times'} during the run (first: ${first.operation}: ${first.message}), so its state was not fully saved; fix the store and rerun, or pass --store-errors warn\n`,
    );
    return storeFailedExitCode;
  }

  /** SIGTERM: ends the running query like an interrupt (its checkpoint is kept), exit 143. */
  #terminate(): void {
    const current = this.#current;
    if (current === undefined || this.#terminated) {
      this.#forceQuit(terminatedExitCode);
      return;
    }
    this.#terminated = true;
    this.#io.stderr.write(
      `\nrlm: terminated (SIGTERM); the checkpoint is kept: rerun with --resume to continue\n`,
    );
    current.abort();
  }

  /**
   * Handles an interrupt: aborts the running query, quits at once when it is already aborting,
   * or runs `whenIdle` when no query runs.
   */
  #interrupt(whenIdle: () => void): void {
    const current = this.#current;
    if (current === undefined) whenIdle();
    else if (current.signal.aborted) this.#forceQuit(130);
    else {
      this.#io.stderr.write('\nrlm: aborting… (Ctrl-C again to quit at once)\n');
      current.abort();
    }
  }

  #subscribe(whenIdle: () => void): () => void {
    const onInterrupt = this.#io.onInterrupt ?? subscribeToSignal('SIGINT');
    const onTerminate = this.#io.onTerminate ?? subscribeToSignal('SIGTERM');
    const unsubscribeInterrupt = onInterrupt(() => this.#interrupt(whenIdle));
    const unsubscribeTerminate = onTerminate(() => this.#terminate());
    return () => {
      unsubscribeInterrupt();
      unsubscribeTerminate();
    };
  }
}

/** The store a session writes (when any) and the watch over its failures. */
export interface SessionStorage {
  readonly store: ArtifactStore | undefined;
  readonly watch: StoreFailureWatch;
}

function isRunLeaseHeld(error: unknown): error is RunLeaseHeldError {
  return error instanceof Error && error.name === 'RunLeaseHeldError';
}

function describeHeldRun(error: RunLeaseHeldError): string {
  const { pid, hostname, heartbeatAt } = error.holder;
  const seconds = Math.max(0, Math.round((Date.now() - heartbeatAt) / 1000));
  return `this run (same query and context) is being run by process ${pid} on ${hostname} (last heartbeat ${seconds} s ago); wait for it to end or stop it (kill ${pid}), then run again`;
}

function describeContext(context: LoadedContext | undefined, cli: CliOptions): string {
  if (context === undefined) return 'no context';
  const size = formatBytes(context.bytes);
  if (cli.contextFile !== undefined) {
    const kind =
      typeof context.value === 'string' || Utf8Text.isInstance(context.value) ? 'text' : 'JSON';
    return `context ${cli.contextFile} (${size}, ${kind})`;
  }
  const shape = cli.concat ? 'joined into one string' : 'as an array of { path, text }';
  const files = `${context.files} ${context.files === 1 ? 'file' : 'files'}`;
  return `context ${cli.contextDirectory} (${files}, ${size}, ${shape})`;
}
