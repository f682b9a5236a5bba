import type { RLM, RlmEvent } from '@rlm/core';

/** An event of a run and when the bench saw it (`performance.now()`). */
export interface TimedEvent {
  readonly event: RlmEvent;
  readonly at: number;
}

/** Runs one query to its end and returns every event, timed as it arrived. */
export async function collectRunEvents(
  rlm: RLM,
  query: string,
  context: unknown,
): Promise<TimedEvent[]> {
  const events: TimedEvent[] = [];
  for await (const event of rlm.queryStream(query, context)) {
    events.push({ event, at: performance.now() });
  }
  return events;
}
