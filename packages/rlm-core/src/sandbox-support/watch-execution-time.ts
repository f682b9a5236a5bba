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
 * still cut off. Calls `onTimeout` once, with the reason in words, when either passes. Returns
 * the cleanup, which stops the watch.
 */
export function watchExecutionTime(
  clock: ExecutionClock,
  limits: ExecutionTimeLimits,
  onTimeout: (reason: string) => void,
): () => void {
  const started = performance.now();
  const { timeoutMs, hostWaitMs } = limits;
  const wallLimitMs = Math.max(timeoutMs, hostWaitMs);
  let timer: ReturnType<typeof setTimeout>;
  const check = () => {
    const elapsed = performance.now() - started;
    const counted = clock.countedMs();
    if (counted >= timeoutMs) {
      onTimeout(`Execution timed out after ${timeoutMs} ms`);
      return;
    }
    if (elapsed >= wallLimitMs) {
      onTimeout(
        `Execution timed out after ${Math.round(elapsed)} ms awaiting host calls (limit hostWaitMs ${hostWaitMs} ms)`,
      );
      return;
    }
    // The counted time grows no faster than wall time: neither limit passes before then.
    const delayMs = Math.min(timeoutMs - counted, wallLimitMs - elapsed);
    timer = setTimeout(check, Math.max(1, Math.min(delayMs, maxTimerDelayMs)));
  };
  timer = setTimeout(check, Math.max(1, Math.min(timeoutMs, maxTimerDelayMs)));
  return () => clearTimeout(timer);
}
