import { subscribeToSignal } from '../../subscribe-to-signal.js';
import type { BatchCommandIo } from './batch-command-io.js';

/** Exit codes after a signal, as shells report them. */
const signalExitCodes = { interrupted: 130, terminated: 143 } as const;

/** What the signals a batch listens for have asked of it. */
export interface SignalStop {
  /** Aborted at the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** The first signal's exit code (130 interrupted, 143 terminated); `undefined` before one. */
  readonly exitCode: number | undefined;
  /** Resolves with the first signal's exit code when a second signal comes: quit at once. */
  readonly forced: Promise<number>;
  /** Stops listening. */
  dispose(): void;
}

/**
 * Listens for SIGINT and SIGTERM, through `io`'s subscribers when it has them: the first tells
 * `onStop` which it was, then aborts `signal`; a second resolves `forced`.
 */
export function stopOnSignals(
  io: Pick<BatchCommandIo, 'onInterrupt' | 'onTerminate'>,
  onStop: (signal: keyof typeof signalExitCodes) => void,
): SignalStop {
  const stopper = new AbortController();
  let exitCode: number | undefined;
  let quitNow: (exitCode: number) => void = () => {};
  const forced = new Promise<number>((resolve) => {
    quitNow = resolve;
  });
  const stop = (signal: keyof typeof signalExitCodes) => {
    if (exitCode !== undefined) {
      quitNow(exitCode);
      return;
    }
    exitCode = signalExitCodes[signal];
    onStop(signal);
    stopper.abort();
  };
  const unsubscribe = [
    (io.onInterrupt ?? subscribeToSignal('SIGINT'))(() => stop('interrupted')),
    (io.onTerminate ?? subscribeToSignal('SIGTERM'))(() => stop('terminated')),
  ];
  return {
    signal: stopper.signal,
    get exitCode() {
      return exitCode;
    },
    forced,
    dispose() {
      for (const off of unsubscribe) off();
    },
  };
}
