/**
 * The time an execution has used against its `timeoutMs`: wall time while none of its host
 * calls is pending, and the worker's busy time (its event loop's active time) while one is. So
 * waiting for a model is free only while the worker actually sits idle: code that keeps a call
 * pending while it computes is charged for every millisecond it computes, and code that awaits
 * something else (a timer, a promise that never settles) is charged as it waits.
 */
export class ExecutionClock {
  readonly #now: () => number;
  readonly #busyMs: () => number;
  #pending = 0;
  #onCallStarted: (() => void) | undefined;
  /** Time counted up to the start of the current span. */
  #closedMs = 0;
  /** Where the current span started, on the wall clock and on the busy clock. */
  #spanWallStart: number;
  #spanBusyStart: number;

  /**
   * @param now the wall clock, in ms (e.g. `performance.now`)
   * @param busyMs the worker's busy time so far, in ms, growing no faster than `now`
   */
  constructor(now: () => number, busyMs: () => number) {
    this.#now = now;
    this.#busyMs = busyMs;
    this.#spanWallStart = now();
    this.#spanBusyStart = busyMs();
  }

  /**
   * A host call of the execution started: the host has run the call's synchronous part by now,
   * counted as wall time (see {@link onCallStarted}).
   */
  callStarted(): void {
    if (this.#pending++ === 0) this.#closeSpan({ busyOnly: false });
    this.#onCallStarted?.();
  }

  /**
   * Calls `listener` each time a host call starts, when the counted time may have jumped by
   * the host's own work on the call: a worker that calls the host again at once keeps the
   * host busy with its messages, and a timer alone might not run until it stops. One listener
   * at a time; returns the cleanup.
   */
  onCallStarted(listener: () => void): () => void {
    this.#onCallStarted = listener;
    return () => {
      if (this.#onCallStarted === listener) this.#onCallStarted = undefined;
    };
  }

  /** A host call of the execution settled (once per `callStarted`). */
  callSettled(): void {
    if (this.#pending === 0) return;
    if (--this.#pending === 0) this.#closeSpan({ busyOnly: true });
  }

  /** Milliseconds counted so far; never grows faster than the wall clock. */
  countedMs(): number {
    return this.#closedMs + this.#openSpanMs();
  }

  #openSpanMs(): number {
    return this.#pending === 0
      ? this.#now() - this.#spanWallStart
      : this.#busyMs() - this.#spanBusyStart;
  }

  /** Counts the span that ends now (only its busy time when calls were pending) and starts the next. */
  #closeSpan({ busyOnly }: { readonly busyOnly: boolean }): void {
    const spanMs = busyOnly
      ? this.#busyMs() - this.#spanBusyStart
      : this.#now() - this.#spanWallStart;
    this.#closedMs += Math.max(0, spanMs);
    this.#spanWallStart = this.#now();
    this.#spanBusyStart = this.#busyMs();
  }
}
