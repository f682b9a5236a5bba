import type { RlmEvent } from '../events.js';

/** What {@link collectEvents} gathered: every event in order, and the error that ended the stream. */
export interface CollectedEvents {
  readonly events: RlmEvent[];
  /** What the stream threw after its `call-error` event; absent when it ended with `final`. */
  readonly error?: unknown;
}

/**
 * Reads a `queryStream` to its end, for tests: every event in order, and the run's error
 * beside them instead of thrown, so a test can look at both.
 *
 * @example
 * const { events, error } = await collectEvents(rlm.queryStream('q', context));
 */
export async function collectEvents(stream: AsyncIterable<RlmEvent>): Promise<CollectedEvents> {
  const events: RlmEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events };
}
