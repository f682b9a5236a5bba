import { formatDuration } from '../../output/format-runs-table.js';

/** What a server needs to stop: the signals, where to say so, how long running runs may go on. */
export interface StopSignals {
  /** Subscribes to interrupts (Ctrl-C); defaults to the process's `SIGINT`. */
  readonly onInterrupt?: (listener: () => void) => () => void;
  /** Subscribes to termination requests; defaults to the process's `SIGTERM`. */
  readonly onTerminate?: (listener: () => void) => () => void;
  readonly stderr: NodeJS.WritableStream;
}

/**
 * Waits until the first interrupt or termination, then closes `server` gracefully (running
 * requests get `graceMs` to finish; a second signal cuts them at once) and resolves when it is
 * closed. Also resolves, without a signal, when `ended` does (an MCP client closed stdio).
 */
export async function serveUntilStopped(
  server: { close(options: { readonly graceMs: number }): Promise<void> },
  options: StopSignals & {
    readonly graceMs: number;
    readonly running: () => number;
    readonly ended?: Promise<void>;
  },
): Promise<void> {
  let signals = 0;
  let stopped!: () => void;
  const stop = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  const onSignal = () => {
    signals++;
    if (signals === 1) {
      const running = options.running();
      options.stderr.write(
        running === 0
          ? 'rlm: shutting down\n'
          : `rlm: shutting down: ${running} running ${running === 1 ? 'request' : 'requests'} may finish within ${formatDuration(options.graceMs)} (signal again to stop ${running === 1 ? 'it' : 'them'} now)\n`,
      );
      void server.close({ graceMs: options.graceMs }).then(stopped);
    } else {
      if (signals === 2) options.stderr.write('rlm: stopping the running requests now\n');
      void server.close({ graceMs: 0 });
    }
  };
  const unsubscribe = [
    (options.onInterrupt ?? subscribeTo('SIGINT'))(onSignal),
    (options.onTerminate ?? subscribeTo('SIGTERM'))(onSignal),
  ];
  try {
    await Promise.race([
      stop,
      options.ended?.then(() => server.close({ graceMs: 0 })) ?? new Promise<never>(() => {}),
    ]);
  } finally {
    for (const off of unsubscribe) off();
  }
}

function subscribeTo(signal: NodeJS.Signals): (listener: () => void) => () => void {
  return (listener) => {
    process.on(signal, listener);
    return () => process.off(signal, listener);
  };
}
