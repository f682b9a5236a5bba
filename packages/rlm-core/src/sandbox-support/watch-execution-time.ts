import type { ExecutionClock } from './execution-clock.js';

/** Node fires longer timers at once; a longer limit is checked again after this long. */
const maxTimerDelayMs = 2 ** 31 - 1;

/** Limits of {@link watchExecutionTime}, in milliseconds. */
export interface ExecutionTimeLimits {
  /** The most time `clock` may count. */
  readonly timeoutMs: number;
  /** The most wall time the execution may take in all; never less than `timeoutMs`. */
  readonly hostWaitMs: number;
}

/**
 * Watches an execution's time on `clock` (see {@link ExecutionClock}): `timeoutMs` bounds the
 * time it counts (wall time while no host call is pending, the environment's busy time while
 * one is), and `hostWaitMs` bounds the whole wall time, so a host call that never settles is
 * still cut off. Calls `onTimeout` once, with the reason in words, when either passes: on a
 * timer, and at once when a host call starts after the host spent the time itself (its
 * synchronous work on the call). Returns the cleanup, which stops the watch.
 */
export function watchExecutionTime(
  clock: ExecutionClock,
  limits: ExecutionTimeLimits,
  onTimeout: (reason: string) => void,
): () => void {
  const started = performance.now();
  const { timeoutMs, hostWaitMs } = limits;
  const wallLimitMs = Math.max(timeoutMs, hostWaitMs);
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout>;
  /** Whether a limit has passed (then `onTimeout` ran, once); else the time left, at least. */
  const passed = (): number | true => {
    if (timedOut) return true;
    const elapsed = performance.now() - started;
    const counted = clock.countedMs();
    if (counted >= timeoutMs) {
      timedOut = true;
      onTimeout(`Execution timed out after ${timeoutMs} ms`);
      return true;
    }
    if (elapsed >= wallLimitMs) {
      timedOut = true;
      onTimeout(
        `Execution timed out after ${Math.round(elapsed)} ms awaiting host calls (limit hostWaitMs ${hostWaitMs} ms)`,
      );
      return true;
    }
    // The counted time grows no faster than wall time: neither limit passes before then.
    return Math.min(timeoutMs - counted, wallLimitMs - elapsed);
  };
  const check = () => {
    const left = passed();
    if (left !== true) timer = setTimeout(check, Math.max(1, Math.min(left, maxTimerDelayMs)));
  };
  timer = setTimeout(check, Math.max(1, Math.min(timeoutMs, maxTimerDelayMs)));
  // Time the host spent on a call's synchronous part is counted as the call starts.
  const stopListening = clock.onCallStarted(passed);
  return () => {
    clearTimeout(timer);
    stopListening();
  };
}
