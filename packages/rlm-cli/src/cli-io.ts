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
  /**
   * Environment: `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`,
   * `RLM_MODEL`, `NO_COLOR`.
   */
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
  /**
   * Subscribes to termination requests and returns an unsubscribe function. A termination ends
   * like an interrupt (the running query is aborted, its checkpoint kept) with one line and exit
   * code 143; a second one quits at once. Defaults to the process's `SIGTERM`.
   */
  readonly onTerminate?: (listener: () => void) => () => void;
}
