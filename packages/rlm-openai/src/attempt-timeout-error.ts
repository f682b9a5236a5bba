/** One attempt of a Chat Completions call ran past the adapter's `timeoutMs`. */
export class AttemptTimeoutError extends Error {
  /** The time allowed, in milliseconds. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`the attempt took longer than ${timeoutMs} ms`);
    this.name = 'AttemptTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}
