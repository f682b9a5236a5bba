/**
 * Lets a long run of synchronous work (reading 100,000 small files with `fs.*Sync`, several
 * times faster than the promise API for small files) give the event loop a turn every
 * `sliceMs` milliseconds, so that signals and timers are still served.
 */
export class TimeSlicer {
  readonly #sliceMs: number;
  #sliceStart = performance.now();

  /** `sliceMs`: the longest stretch of synchronous work between two turns, in milliseconds. */
  constructor(sliceMs = 50) {
    this.#sliceMs = sliceMs;
  }

  /** Resolves at once within a slice; after it, once the event loop has had a turn. */
  async pause(): Promise<void> {
    if (performance.now() - this.#sliceStart < this.#sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#sliceStart = performance.now();
  }
}
