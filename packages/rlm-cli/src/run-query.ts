import type { FinalEvent, RLM, RlmEvent } from '@rlm/core';
import type { JsonRunReport } from './format-answer.js';

/**
 * Runs one query through `rlm.queryStream`, handing every event to `onEvent`, and assembles
 * the report `--json` prints. Rejects with the run's error (`NoFinalAnswerError`,
 * `ModelCallError`, `AbortedError`, ...). Usage is the sum of the stream's `usage` events;
 * `durationMs` is measured here, around the whole stream.
 */
export async function runQuery(
  rlm: RLM,
  query: string,
  context: unknown,
  options: { readonly signal: AbortSignal; readonly onEvent: (event: RlmEvent) => void },
): Promise<JsonRunReport> {
  const startedAt = performance.now();
  let final: FinalEvent | undefined;
  let depthReached = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let modelCalls = 0;
  for await (const event of rlm.queryStream(query, context, { signal: options.signal })) {
    options.onEvent(event);
    depthReached = Math.max(depthReached, event.depth);
    if (event.type === 'usage') {
      inputTokens += event.usage.inputTokens;
      outputTokens += event.usage.outputTokens;
      modelCalls = event.modelCalls;
    } else if (event.type === 'final' && event.depth === 0) {
      final = event;
    }
  }
  if (final === undefined) {
    throw new Error('@rlm/cli: the run ended without a final event; report this as a bug');
  }
  return {
    answer: final.answer,
    iterations: final.iterations,
    depthReached,
    usage: { inputTokens, outputTokens, modelCalls },
    durationMs: Math.round(performance.now() - startedAt),
  };
}
