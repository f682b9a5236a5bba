import { abortableWait } from './abortable-wait.js';
import type { ModelRetry } from './language-model.js';
import { backoffDelayMs } from './retry-timing.js';

/** How an adapter judges one failed attempt. */
export interface RetryVerdict {
  /** Whether another attempt may succeed (429, 5xx, a timeout, a dropped connection, ...). */
  readonly retryable: boolean;
  /** The wait the API asked for (`retry-after`), in milliseconds, if it asked. */
  readonly retryAfterMs: number | undefined;
  /** What the `onRetry` report says of the failure; `detail` must hold no secret. */
  readonly retry: Pick<ModelRetry, 'reason' | 'status' | 'detail'>;
}

/** Why {@link retryModelCall} stopped trying, for the adapter's error. */
export interface RetryGiveUp {
  /** Attempts made, the failed one included. */
  readonly attempts: number;
  /** Time since the first attempt started. */
  readonly elapsedMs: number;
  /** Set when the API asked to wait longer than `maxRetryAfterMs` allows. */
  readonly refusedWait?: { readonly retryAfterMs: number; readonly maxRetryAfterMs: number };
}

/** What {@link retryModelCall} runs. `Verdict` lets an adapter carry its own facts to `giveUp`. */
export interface RetriedModelCall<Result, Verdict extends RetryVerdict> {
  /** One attempt. */
  attempt(): Promise<Result>;
  /** Judges a failed attempt. */
  judge(error: unknown): Verdict;
  /** The error to reject with when no attempt is left, the failure is final or the wait too long. */
  giveUp(error: unknown, verdict: Verdict, context: RetryGiveUp): Error;
  /** Retries after the first attempt (0 or more). */
  readonly maxRetries: number;
  /** The longest `retry-after` wait honoured, in milliseconds. */
  readonly maxRetryAfterMs: number;
  /** Rejects at once with its reason, also during a wait; an attempt it ends is not retried. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Told of each wait before it starts; a throw from it is ignored. When it returns a promise,
   * the next attempt waits for it too (the run's concurrency gate queues a rate-limited call
   * for a slot again); only an abort of `signal` makes it fail the call.
   */
  readonly onRetry?: ((retry: ModelRetry) => unknown) | undefined;
}

/**
 * The retry policy every model adapter shares: runs `attempt` until it succeeds, the failure
 * is final, `maxRetries` are spent, or the API asks to wait longer than `maxRetryAfterMs`;
 * between attempts waits `retry-after` when the API gave one, else {@link backoffDelayMs}, and
 * reports each wait to `onRetry` first (and waits for the promise it returns, if any).
 */
export async function retryModelCall<Result, Verdict extends RetryVerdict>(
  call: RetriedModelCall<Result, Verdict>,
): Promise<Result> {
  const { signal, onRetry, maxRetryAfterMs } = call;
  if (signal?.aborted) throw signal.reason;
  const startedAt = Date.now();
  const maxAttempts = call.maxRetries + 1;
  for (let attempts = 1; ; attempts++) {
    let failure: unknown;
    try {
      return await call.attempt();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      failure = error;
    }
    const verdict = call.judge(failure);
    const giveUp = (refusedWait?: RetryGiveUp['refusedWait']) =>
      call.giveUp(failure, verdict, {
        attempts,
        elapsedMs: Date.now() - startedAt,
        ...(refusedWait ? { refusedWait } : {}),
      });
    if (!verdict.retryable || attempts >= maxAttempts) throw giveUp();
    const { retryAfterMs } = verdict;
    if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs) {
      throw giveUp({ retryAfterMs, maxRetryAfterMs });
    }
    const delayMs = retryAfterMs ?? backoffDelayMs(attempts);
    let ready: Promise<unknown> | undefined;
    try {
      const reported = onRetry?.({
        attempt: attempts + 1,
        maxAttempts,
        delayMs,
        requestedByApi: retryAfterMs !== undefined,
        ...verdict.retry,
      });
      // Settled either way: only an abort of `signal` stops the retry.
      ready = Promise.resolve(reported).catch(() => undefined);
    } catch {
      // Reporting a retry is best-effort.
    }
    await abortableWait(delayMs, signal);
    await ready;
    if (signal?.aborted) throw signal.reason;
  }
}
