import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { type ArtifactStore, createRLM, type RLM, type RlmEvent } from '@rlm/core';
import { createAnthropicModel } from '@rlm/core/anthropic';
import { createSesSandbox } from '@rlm/sandbox-ses';
import { createToolStore, runToolsCommand } from '@rlm/toolstore';
import { cliVersion } from './cli-version.js';
import { ContextLoadError } from './context-load-error.js';
import { describeRunError } from './describe-run-error.js';
import { formatAnswer, formatJsonReport } from './format-answer.js';
import { formatBytes } from './format-bytes.js';
import { helpText } from './help-text.js';
import { type LoadedContext, loadContext } from './load-context.js';
import { loadToolsModule } from './load-tools-module.js';
import { type CliOptions, type ModelSpec, parseArguments } from './parse-arguments.js';
import { createRunTracer } from './record-run-trace.js';
import { createEventRenderer } from './render-events.js';
import { runQuery } from './run-query.js';
import { runRunsCommand } from './run-runs-command.js';
import { runTraceCommand } from './run-trace-command.js';
import { UsageError } from './usage-error.js';

/** A readable stream `runCli` takes queries from; `process.stdin` fits. */
export type CliInput = NodeJS.ReadableStream & { readonly isTTY?: boolean };

/** A writable stream `runCli` prints to; `process.stdout` and `process.stderr` fit. */
export type CliOutput = NodeJS.WritableStream & {
  readonly isTTY?: boolean;
  /** Terminal width, used to cut progress lines. */
  readonly columns?: number;
};

/** Everything `runCli` touches, injectable for tests. */
export interface RunCliOptions {
  /** The arguments after `node` and the script. */
  readonly argv: readonly string[];
  /** Environment: `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `RLM_MODEL`, `NO_COLOR`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Queries when no query argument is given: a REPL when a TTY, else one query per line. */
  readonly stdin: CliInput;
  /** Answers only. */
  readonly stdout: CliOutput;
  /** Progress, prompts and errors. */
  readonly stderr: CliOutput;
  /**
   * Subscribes to interrupt requests (Ctrl-C) and returns an unsubscribe function. The first
   * interrupt aborts the running query; a second one while it is still aborting makes
   * `runCli` resolve 130 at once. Defaults to the process's `SIGINT`.
   */
  readonly onInterrupt?: (listener: () => void) => () => void;
}

/** Words that end the REPL. */
const exitWords = new Set(['exit', 'quit', '.exit']);

/**
 * Runs the `rlm` command and resolves to its exit code: 0 answered, 1 a query failed, 2 bad
 * usage or context (nothing was sent to a model), 130 interrupted. Never rejects: every error
 * is printed on `stderr` as one line starting with `rlm: `.
 */
export async function runCli(options: RunCliOptions): Promise<number> {
  const { stdout, stderr } = options;
  let quitNow: (exitCode: number) => void = () => {};
  const forceQuit = new Promise<number>((resolve) => {
    quitNow = resolve;
  });
  let rlm: RLM | undefined;
  let store: ArtifactStore | undefined;
  try {
    const command = parseArguments(options.argv, options.env);
    if (command.kind === 'help') {
      stdout.write(helpText());
      return 0;
    }
    if (command.kind === 'version') {
      stdout.write(`${cliVersion}\n`);
      return 0;
    }
    if (command.kind === 'runs') return await runRunsCommand(command.argv, { stdout });
    if (command.kind === 'trace') return await runTraceCommand(command.argv, { stdout, stderr });
    if (command.kind === 'tools') {
      return await runToolsCommand(command.argv, {
        stdout,
        stderr,
        runtimeVersion: cliVersion,
        ...(command.toolStoreRoot ? { root: command.toolStoreRoot } : {}),
      });
    }
    const cli = command.options;
    const apiKey = options.env.ANTHROPIC_API_KEY?.trim();
    if (!apiKey) {
      throw new UsageError(
        'ANTHROPIC_API_KEY is not set; export ANTHROPIC_API_KEY=<your key> (from https://console.anthropic.com/settings/keys)',
      );
    }
    const context = await loadContext({
      file: cli.contextFile,
      directory: cli.contextDirectory,
      concat: cli.concat,
      maxBytes: cli.maxContextBytes,
    });
    const tools = cli.toolsModule ? await loadToolsModule(cli.toolsModule) : [];
    store = cli.storePath ? await openStore(cli.storePath) : undefined;
    const baseURL = options.env.ANTHROPIC_BASE_URL?.trim() || undefined;
    const createModel = (spec: ModelSpec) =>
      createAnthropicModel({ model: spec.modelId, apiKey, baseURL });
    rlm = createRLM({
      llm: createModel(cli.model),
      subLlm: cli.subModel && createModel(cli.subModel),
      sandbox: createSesSandbox(),
      maxDepth: cli.maxDepth,
      maxIterations: cli.maxIterations,
      execTimeoutMs: cli.execTimeoutMs,
      tools,
      toolStore: createToolStore({
        switches: cli.toolSwitches,
        ...(cli.toolStoreRoot ? { root: cli.toolStoreRoot } : {}),
      }),
      ...(store ? { artifacts: store } : {}),
    });
    const session = new Session(rlm, context, cli, options, quitNow, store);
    const run =
      cli.query !== undefined
        ? session.runOnce(cli.query)
        : options.stdin.isTTY
          ? session.runRepl()
          : session.runPipe();
    // After a forced quit the run may still settle; nobody waits for it then.
    run.catch(() => {});
    return await Promise.race([run, forceQuit]);
  } catch (error) {
    if (UsageError.isInstance(error) || ContextLoadError.isInstance(error)) {
      stderr.write(`rlm: ${error.message}\n`);
      return 2;
    }
    return reportFailure(error, stderr);
  } finally {
    const disposed = Promise.all([rlm?.dispose(), store?.close()]).catch(() => {});
    await Promise.race([disposed, forceQuit]);
  }
}

/** Opens the SQLite artifact store; a failure is a usage error naming the flags to change it. */
async function openStore(storePath: string): Promise<ArtifactStore> {
  try {
    // Loaded on demand: SQLite's native module is not needed (or even present) with --no-store.
    const { createSqliteArtifactStore } = await import('@rlm/artifacts');
    return await createSqliteArtifactStore({ path: storePath });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^@rlm\/artifacts: /, '') : '';
    throw new UsageError(`${reason}; pass --store <file> or --no-store`, { cause: error });
  }
}

/** One RLM, its context and its output, across the queries of one invocation. */
class Session {
  readonly #rlm: RLM;
  readonly #context: LoadedContext | undefined;
  readonly #cli: CliOptions;
  readonly #io: RunCliOptions;
  readonly #forceQuit: (exitCode: number) => void;
  readonly #render: (event: RlmEvent) => void;
  /** The running query's abort controller. */
  #current: AbortController | undefined;
  /** Where each query's trace is kept; `undefined` with `--no-store`. */
  readonly #store: ArtifactStore | undefined;

  constructor(
    rlm: RLM,
    context: LoadedContext | undefined,
    cli: CliOptions,
    io: RunCliOptions,
    forceQuit: (exitCode: number) => void,
    store?: ArtifactStore,
  ) {
    this.#store = store;
    this.#rlm = rlm;
    this.#context = context;
    this.#cli = cli;
    this.#io = io;
    this.#forceQuit = forceQuit;
    const { stderr, env } = io;
    const color = Boolean(stderr.isTTY) && !env.NO_COLOR;
    const render = createEventRenderer({
      write: (text) => stderr.write(text),
      color,
      width: (stderr.isTTY && stderr.columns) || undefined,
    });
    this.#render = cli.quiet ? () => {} : render;
    if (!cli.quiet) {
      const line = `rlm ${cliVersion} · anthropic:${cli.model.modelId} · ${describeContext(context, cli)}`;
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
    const { stdout, stderr } = this.#io;
    const controller = new AbortController();
    this.#current = controller;
    const tracer = createRunTracer({
      store: this.#store,
      traceFile: this.#cli.traceFile,
      report: (line) => stderr.write(`${line}\n`),
      announce: !this.#cli.quiet,
      metadata: { cli: cliVersion, model: this.#cli.model, subModel: this.#cli.subModel },
    });
    let failure: unknown;
    try {
      const report = await runQuery(this.#rlm, query, this.#context?.value, {
        signal: controller.signal,
        onEvent: (event) => {
          tracer.record(event);
          this.#render(event);
        },
        resume: this.#cli.resume,
      }).catch((error: unknown) => {
        failure = error;
        throw error;
      });
      await tracer.finish();
      if (this.#cli.outFile !== undefined) {
        const text = formatAnswer(report.answer);
        await mkdir(path.dirname(path.resolve(this.#cli.outFile)), { recursive: true });
        await writeFile(this.#cli.outFile, text);
        stderr.write(
          `rlm: answer written to ${this.#cli.outFile} (${formatBytes(Buffer.byteLength(text))})\n`,
        );
      }
      if (this.#cli.json) stdout.write(formatJsonReport(report));
      else if (this.#cli.outFile === undefined) stdout.write(formatAnswer(report.answer));
      return 0;
    } catch (error) {
      if (failure !== undefined) await tracer.finish(failure);
      return reportFailure(error, stderr);
    } finally {
      this.#current = undefined;
    }
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
    const onInterrupt = this.#io.onInterrupt ?? subscribeToSigint;
    return onInterrupt(() => this.#interrupt(whenIdle));
  }
}

function subscribeToSigint(listener: () => void): () => void {
  process.on('SIGINT', listener);
  return () => process.off('SIGINT', listener);
}

/** Prints a failed query's line (and partial answer) on stderr; returns the exit code. */
function reportFailure(error: unknown, stderr: CliOutput): number {
  const failure = describeRunError(error);
  stderr.write(`rlm: ${failure.message}\n`);
  if (failure.partialAnswer?.trim()) {
    stderr.write(`rlm: partial answer (not final):\n${failure.partialAnswer.trimEnd()}\n`);
  }
  return failure.exitCode;
}

function describeContext(context: LoadedContext | undefined, cli: CliOptions): string {
  if (context === undefined) return 'no context';
  const size = formatBytes(context.bytes);
  if (cli.contextFile !== undefined) {
    const kind = typeof context.value === 'string' ? 'text' : 'JSON';
    return `context ${cli.contextFile} (${size}, ${kind})`;
  }
  const shape = cli.concat ? 'joined into one string' : 'as an array';
  return `context ${cli.contextDirectory} (${context.files} files, ${size}, ${shape})`;
}
