/**
 * One attempt of a Chat Completions call ran past the adapter's `timeoutMs`: unstreamed, from
 * the request to the body's last byte; streamed, before the first chunk or between two chunks.
 */
export class AttemptTimeoutError extends Error {
  /** The time allowed, in milliseconds. */
  readonly timeoutMs: number;
  /** Chunks of a streamed answer received before it went silent; 0 when nothing came. */
  readonly chunksReceived: number;

  constructor(timeoutMs: number, chunksReceived = 0) {
    super(
      chunksReceived === 0
        ? `the attempt took longer than ${timeoutMs} ms`
        : `the stream went silent for ${timeoutMs} ms after ${chunksReceived} chunks`,
    );
    this.name = 'AttemptTimeoutError';
    this.timeoutMs = timeoutMs;
    this.chunksReceived = chunksReceived;
  }
}
