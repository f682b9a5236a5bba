/**
 * A single-consumer async queue of events. `push` never blocks, so a slow consumer cannot
 * stall the producer: past `capacity` buffered events the oldest droppable one is discarded
 * and counted in `dropped`.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  readonly #buffer: T[] = [];
  readonly #capacity: number;
  readonly #isDroppable: (event: T) => boolean;
  #waiter:
    | { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void }
    | undefined;
  #closed = false;
  #failure: { error: unknown } | undefined;
  #dropped = 0;
  readonly #onReturn: () => void;

  /**
   * @param onReturn runs when the consumer stops early (breaks out of `for await`).
   */
  constructor(
    options: { capacity?: number; isDroppable?: (event: T) => boolean; onReturn?: () => void } = {},
  ) {
    this.#capacity = options.capacity ?? 10_000;
    this.#isDroppable = options.isDroppable ?? (() => true);
    this.#onReturn = options.onReturn ?? (() => {});
  }

  /** Events discarded because the consumer fell behind. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Adds an event; ignored after `close`. */
  push(event: T): void {
    if (this.#closed) return;
    if (this.#waiter) {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter.resolve({ value: event, done: false });
      return;
    }
    if (this.#buffer.length >= this.#capacity) {
      const oldest = this.#buffer.findIndex(this.#isDroppable);
      if (oldest >= 0) {
        this.#buffer.splice(oldest, 1);
        this.#dropped += 1;
      }
    }
    this.#buffer.push(event);
  }

  /** Ends the stream after the buffered events; with `error`, the iterator then throws it. */
  close(error?: { error: unknown }): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#failure = error;
    if (this.#waiter && this.#buffer.length === 0) {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      if (error) {
        this.#failure = undefined;
        waiter.reject(error.error);
      } else waiter.resolve({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const event = this.#buffer.shift();
        if (event !== undefined) return Promise.resolve({ value: event, done: false });
        if (this.#closed) {
          if (this.#failure) {
            const { error } = this.#failure;
            this.#failure = undefined;
            return Promise.reject(error);
          }
          return Promise.resolve({ value: undefined, done: true });
        }
        return new Promise((resolve, reject) => {
          this.#waiter = { resolve, reject };
        });
      },
      return: () => {
        if (!this.#closed) {
          this.#closed = true;
          this.#buffer.length = 0;
          this.#onReturn();
        }
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
