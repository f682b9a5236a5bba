/** One attempt of a Messages API call ran past the adapter's `timeoutMs` (headers or body). */
export class AttemptTimeoutError extends Error {
  /** The time allowed, in milliseconds. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`the attempt took longer than ${timeoutMs} ms`);
    this.name = 'AttemptTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}
