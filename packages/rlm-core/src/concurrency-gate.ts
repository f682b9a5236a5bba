import { abortableWait } from './abortable-wait.js';
import { AbortedError } from './errors/aborted-error.js';

/**
 * Model calls at once when `maxConcurrency` is not set: the gate starts there and halves on
 * the API's 429s, so a high cap costs nothing where the API allows less.
 */
export const defaultMaxConcurrency = 64;

/** One task's hold on a gate slot, as `run` hands it to the task. */
export interface GateSlot {
  /**
   * The API answered this task with 429 (rate limited), asking to wait `retryAfterMs` if it
   * said. Halves the gate's level, unless a task started after this one already did (one
   * burst of 429s counts once), and holds every new start for `retryAfterMs`.
   */
  rateLimited(retryAfterMs: number | undefined): void;
  /**
   * Gives the slot up while the task waits `delayMs` to retry, then queues for one again,
   * ahead of the tasks not yet started. Resolves once the slot is held again; rejects, holding
   * nothing, when the task's signal aborts first.
   */
  pauseFor(delayMs: number): Promise<void>;
}

/**
 * A counting semaphore whose limit adapts to a rate-limited API, shared by every model call of
 * a run tree. At most `level` tasks hold a slot at once, the rest wait in FIFO order; `level`
 * stays between 1 and `cap` and starts at `cap`. A 429 halves it, once per generation: only a
 * task that took its slot since the last halving halves it again, so the burst of 429s one
 * level caused counts once; the API's `retry-after` also holds every new start that long. Each
 * task of the current generation answered without a 429 raises the level by one, back up to
 * `cap`: with `level` tasks answered per round trip it doubles each round.
 */
export class ConcurrencyGate {
  readonly #cap: number;
  #level: number;
  #active = 0;
  /** Incremented at each halving. */
  #generation = 0;
  #pausedUntil = 0;
  #pauseTimer: NodeJS.Timeout | undefined;
  readonly #waiting: Array<() => void> = [];

  /** `cap`: the most tasks at once, ever. */
  constructor(cap: number) {
    if (!Number.isInteger(cap) || cap < 1) {
      throw new RangeError(`@rlm/core: maxConcurrency must be a positive integer, got ${cap}`);
    }
    this.#cap = cap;
    this.#level = cap;
  }

  /** Tasks holding a slot now. */
  get active(): number {
    return this.#active;
  }

  /** Tasks allowed at once now, between 1 and `cap`. */
  get level(): number {
    return this.#level;
  }

  /** The most tasks ever allowed at once. */
  get cap(): number {
    return this.#cap;
  }

  /**
   * Runs `task` once a slot is free, handing it its {@link GateSlot}. A waiting task whose
   * `signal` aborts leaves the queue and rejects with `AbortedError` without running.
   */
  async run<T>(task: (slot: GateSlot) => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal, false);
    let generation = this.#generation;
    let held = true;
    let limited = false;
    const slot: GateSlot = {
      rateLimited: (retryAfterMs) => {
        limited = true;
        this.#rateLimited(generation, retryAfterMs);
      },
      pauseFor: async (delayMs) => {
        if (!held) return;
        held = false;
        this.#release(false);
        await abortableWait(delayMs, signal);
        await this.#acquire(signal, true);
        held = true;
        generation = this.#generation;
      },
    };
    let answered = false;
    try {
      const result = await task(slot);
      answered = !limited && generation === this.#generation;
      return result;
    } finally {
      if (held) this.#release(answered);
    }
  }

  /**
   * Waits for a slot and holds it until the returned function is called (calling it again does
   * nothing): for work whose end is not one promise, such as a sandbox's life. Rejects with
   * `AbortedError`, holding nothing, when `signal` aborts first.
   */
  async hold(signal?: AbortSignal): Promise<() => void> {
    await this.#acquire(signal, false);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#release(false);
    };
  }

  #canStart(): boolean {
    return this.#active < this.#level && Date.now() >= this.#pausedUntil;
  }

  /** `first`: ahead of every waiting task (a retry of a task that already started once). */
  #acquire(signal: AbortSignal | undefined, first: boolean): Promise<void> {
    if (signal?.aborted) return Promise.reject(new AbortedError());
    if (this.#waiting.length === 0 && this.#canStart()) {
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
        if (this.#waiting.length === 0) this.#clearPauseTimer();
        reject(new AbortedError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (first) this.#waiting.unshift(grant);
      else this.#waiting.push(grant);
      this.#schedulePauseEnd();
    });
  }

  #release(answered: boolean): void {
    this.#active -= 1;
    if (answered && this.#level < this.#cap) this.#level += 1;
    this.#grantWaiting();
  }

  #rateLimited(generation: number, retryAfterMs: number | undefined): void {
    if (retryAfterMs !== undefined && retryAfterMs > 0) {
      this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + retryAfterMs);
      this.#schedulePauseEnd();
    }
    if (generation !== this.#generation) return;
    this.#generation += 1;
    this.#level = Math.max(1, Math.floor(this.#level / 2));
  }

  #grantWaiting(): void {
    while (this.#waiting.length > 0 && this.#canStart()) this.#waiting.shift()?.();
    if (this.#waiting.length === 0) this.#clearPauseTimer();
  }

  /** While starts are held and a task waits, wakes the queue when the hold ends. */
  #schedulePauseEnd(): void {
    const remaining = this.#pausedUntil - Date.now();
    if (remaining <= 0 || this.#waiting.length === 0) return;
    this.#clearPauseTimer();
    this.#pauseTimer = setTimeout(() => {
      this.#pauseTimer = undefined;
      this.#grantWaiting();
    }, remaining);
  }

  #clearPauseTimer(): void {
    if (this.#pauseTimer !== undefined) clearTimeout(this.#pauseTimer);
    this.#pauseTimer = undefined;
  }
}
