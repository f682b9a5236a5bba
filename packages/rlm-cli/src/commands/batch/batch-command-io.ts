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
