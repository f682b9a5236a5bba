/** `setTimeout`/`clearTimeout` for model code: bounded to the execution that set them. */
import type { ExecutionStatus } from './execution-status.js';

const maxTimerDelay = 2 ** 31 - 1;

export class GuestTimers {
  readonly #status: ExecutionStatus;
  readonly #reportUncaught: (label: string, error: unknown) => void;
  readonly #timers = new Map<number, ReturnType<typeof setTimeout>>();
  #nextId = 1;

  constructor(status: ExecutionStatus, reportUncaught: (label: string, error: unknown) => void) {
    this.#status = status;
    this.#reportUncaught = reportUncaught;
  }

  /** The guest's `setTimeout`: returns 0 and sets nothing outside an active execution. */
  readonly setTimeout = (callback: unknown, delay?: unknown, ...args: unknown[]): number => {
    if (typeof callback !== 'function') {
      throw new TypeError('setTimeout: the callback must be a function');
    }
    if (!this.#status.active) return 0;
    const id = this.#nextId++;
    const milliseconds = Math.min(maxTimerDelay, Math.max(0, Number(delay) || 0));
    const timer = setTimeout(() => {
      this.#timers.delete(id);
      try {
        Reflect.apply(callback, undefined, args);
      } catch (error) {
        this.#reportUncaught('Uncaught in setTimeout', error);
      }
    }, milliseconds);
    this.#timers.set(id, timer);
    return id;
  };

  readonly clearTimeout = (id: unknown): void => {
    const timer = this.#timers.get(id as number);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#timers.delete(id as number);
  };

  /** Clears every timer of the execution that ends. */
  clearAll(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
