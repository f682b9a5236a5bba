import { ServerSettingsError } from './errors/server-settings-error.js';

/**
 * A fixed number of run slots, taken without waiting: a request that finds them all taken is
 * refused (429), never queued.
 */
export class RunSlots {
  readonly #size: number;
  #taken = 0;

  /** @throws {ServerSettingsError} when `size` is not a positive whole number. */
  constructor(size: number) {
    if (!Number.isSafeInteger(size) || size < 1) {
      throw new ServerSettingsError(
        `@rlm/server: concurrency must be a positive whole number of runs (got ${String(size)})`,
      );
    }
    this.#size = size;
  }

  /** Runs at once at most. */
  get size(): number {
    return this.#size;
  }

  /** Slots taken now. */
  get taken(): number {
    return this.#taken;
  }

  /**
   * Takes a slot and returns the function that gives it back (idempotent), or `undefined`
   * when every slot is taken.
   */
  tryTake(): (() => void) | undefined {
    if (this.#taken >= this.#size) return undefined;
    this.#taken++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#taken--;
    };
  }
}
