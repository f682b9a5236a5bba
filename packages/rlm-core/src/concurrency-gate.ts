import { AbortedError } from './errors/aborted-error.js';

/**
 * A counting semaphore: at most `limit` tasks run at once, the rest wait in FIFO order.
 * Shared by every model call of a run tree.
 */
export class ConcurrencyGate {
  readonly #limit: number;
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`@rlm/core: maxConcurrency must be a positive integer, got ${limit}`);
    }
    this.#limit = limit;
  }

  /** Tasks running now. */
  get active(): number {
    return this.#active;
  }

  /**
   * Runs `task` once a slot is free. A waiting task whose `signal` aborts leaves the queue and
   * rejects with `AbortedError` without running.
   */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await task();
    } finally {
      this.#release();
    }
  }

  /**
   * Waits for a slot and holds it until the returned function is called (calling it again does
   * nothing): for work whose end is not one promise, such as a sandbox's life. Rejects with
   * `AbortedError`, holding nothing, when `signal` aborts first.
   */
  async hold(signal?: AbortSignal): Promise<() => void> {
    await this.#acquire(signal);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#release();
    };
  }

  #acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new AbortedError());
    if (this.#active < this.#limit) {
      this.#active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.#active += 1;
        resolve();
      };
      const onAbort = () => {
        const position = this.#waiting.indexOf(grant);
        if (position >= 0) this.#waiting.splice(position, 1);
        reject(new AbortedError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(grant);
    });
  }

  #release(): void {
    this.#active -= 1;
    this.#waiting.shift()?.();
  }
}
