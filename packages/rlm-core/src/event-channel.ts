/** Marks a buffered event dropped in place (removing it would move every later one). */
const droppedSlot: unique symbol = Symbol('dropped');

/**
 * A single-consumer async queue of events. `push` never blocks, so a slow consumer cannot
 * stall the producer: past `capacity` buffered events the oldest droppable one is discarded
 * and counted in `dropped`. Pushing and taking cost O(1) amortised, full or not.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  /** Buffered events from `#head` on; dropped ones are marked, not removed. */
  #buffer: (T | typeof droppedSlot)[] = [];
  #head = 0;
  /** Buffered events not dropped. */
  #size = 0;
  /** Where the search for the oldest droppable event resumes: none before it is droppable. */
  #dropFrom = 0;
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
    if (this.#size >= this.#capacity) this.#dropOldest();
    this.#buffer.push(event);
    this.#size += 1;
  }

  #dropOldest(): void {
    const buffer = this.#buffer;
    let index = Math.max(this.#dropFrom, this.#head);
    while (index < buffer.length) {
      const event = buffer[index]!;
      if (event !== droppedSlot && this.#isDroppable(event)) break;
      index += 1;
    }
    this.#dropFrom = index;
    if (index >= buffer.length) return;
    buffer[index] = droppedSlot;
    this.#size -= 1;
    this.#dropped += 1;
  }

  /** The oldest buffered event, or `undefined`. */
  #take(): T | undefined {
    const buffer = this.#buffer;
    while (this.#head < buffer.length) {
      const event = buffer[this.#head]!;
      buffer[this.#head] = droppedSlot;
      this.#head += 1;
      if (event === droppedSlot) continue;
      this.#size -= 1;
      if (this.#head >= 1024 && this.#head * 2 >= buffer.length) {
        this.#buffer = buffer.slice(this.#head);
        this.#dropFrom = Math.max(0, this.#dropFrom - this.#head);
        this.#head = 0;
      }
      return event;
    }
    return undefined;
  }

  /** Ends the stream after the buffered events; with `error`, the iterator then throws it. */
  close(error?: { error: unknown }): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#failure = error;
    if (this.#waiter && this.#size === 0) {
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
        if (this.#size > 0) return Promise.resolve({ value: this.#take() as T, done: false });
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
          this.#buffer = [];
          this.#head = 0;
          this.#size = 0;
          this.#onReturn();
        }
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
