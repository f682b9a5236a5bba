import type { FinalEvent, RLM, RlmEvent } from '@rlm/core';
import type { JsonRunReport } from '../output/format-answer.js';

/**
 * Runs one query through `rlm.queryStream`, handing every event to `onEvent`, and assembles
 * the report `--json` prints from the root's `final` event (the run's totals). Rejects with
 * the run's error (`NoFinalAnswerError`, `ModelCallError`, `AbortedError`, ...).
 */
export async function runQuery(
  rlm: RLM,
  query: string,
  context: unknown,
  options: {
    readonly signal: AbortSignal;
    readonly onEvent: (event: RlmEvent) => void;
    readonly resume?: boolean;
  },
): Promise<JsonRunReport> {
  let final: FinalEvent | undefined;
  const stream = rlm.queryStream(query, context, {
    signal: options.signal,
    ...(options.resume ? { resume: true } : {}),
  });
  for await (const event of stream) {
    options.onEvent(event);
    if (event.type === 'final' && event.depth === 0) final = event;
  }
  if (final === undefined) {
    throw new Error('@rlm/cli: the run ended without a final event; report this as a bug');
  }
  return {
    answer: final.answer,
    iterations: final.iterations,
    depthReached: final.depthReached,
    usage: final.usage,
    callUsage: final.callUsage ?? [],
    durationMs: final.durationMs,
    ...(final.artifact ? { artifact: final.artifact } : {}),
  };
}
