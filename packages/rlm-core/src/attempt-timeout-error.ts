import { formatDuration } from './format-duration.js';

/**
 * For model adapters: one attempt of a model call ran past the adapter's `timeoutMs`:
 * unstreamed, from the request to the body's last byte; streamed, before the stream's first
 * piece or between two (events of the Messages API, chunks of Chat Completions).
 */
export class AttemptTimeoutError extends Error {
  /** The time allowed, in milliseconds. */
  readonly timeoutMs: number;
  /** Pieces of a streamed answer received before it went silent; 0 when nothing came. */
  readonly received: number;

  /** @param pieceName what the stream's pieces are called in the message: `events`, `chunks`. */
  constructor(timeoutMs: number, received: number, pieceName: string) {
    super(
      received === 0
        ? `the attempt took longer than ${timeoutMs} ms`
        : `the stream went silent for ${timeoutMs} ms after ${received} ${pieceName}`,
    );
    this.name = 'AttemptTimeoutError';
    this.timeoutMs = timeoutMs;
    this.received = received;
  }

  /** What a retry notice says of it: `did not answer within 1 min`, `went silent for 1 min mid-answer`. */
  get retryDetail(): string {
    const time = formatDuration(this.timeoutMs);
    return this.received === 0
      ? `did not answer within ${time}`
      : `went silent for ${time} mid-answer`;
  }
}
