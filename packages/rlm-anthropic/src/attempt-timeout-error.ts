/**
 * One attempt of a Messages API call ran past the adapter's `timeoutMs`: unstreamed, from the
 * request to the body's last byte; streamed, before the first event or between two events.
 */
export class AttemptTimeoutError extends Error {
  /** The time allowed, in milliseconds. */
  readonly timeoutMs: number;
  /** Events of a streamed answer received before it went silent; 0 when nothing came. */
  readonly eventsReceived: number;

  constructor(timeoutMs: number, eventsReceived = 0) {
    super(
      eventsReceived === 0
        ? `the attempt took longer than ${timeoutMs} ms`
        : `the stream went silent for ${timeoutMs} ms after ${eventsReceived} events`,
    );
    this.name = 'AttemptTimeoutError';
    this.timeoutMs = timeoutMs;
    this.eventsReceived = eventsReceived;
  }
}
