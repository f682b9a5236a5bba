import type { ModelRetryEvent, RlmEvent } from '@rlm/core';

/**
 * The stderr line announcing a retry of a model call, newline included, saying which call it
 * is for (see {@link ModelCallNames}):
 * `rlm: llm_query in step 2: the API answered 429 rate_limit_error; retrying in 3 s (attempt 2 of 3)`.
 * Printed even with `--quiet`: a run that waits should say so.
 */
export function formatModelRetry(event: ModelRetryEvent, call: string): string {
  const wait = formatSeconds(event.delayMs);
  const asked = event.requestedByApi ? ', as the API asked' : '';
  const detail = event.detail.replace(/\s+/g, ' ').trim();
  return `rlm: ${call}: the API ${detail}; retrying in ${wait}${asked} (attempt ${event.attempt} of ${event.maxAttempts})\n`;
}

/**
 * Names the model call a `model-retry` event is for, from the run's events before it: a step
 * (`step 3`), a host call's (`llm_query in step 2`), in a `sub_rlm` child (`step 1 of the sub_rlm
 * at depth 1`). Feed it every event of the run with {@link ModelCallNames.observe}.
 */
export class ModelCallNames {
  /** The latest step of each call. */
  readonly #steps = new Map<string, number>();
  /** The name of each host call, by request id. */
  readonly #hostCalls = new Map<string, string>();

  observe(event: RlmEvent): void {
    if (event.type === 'step-start') this.#steps.set(event.callId, event.iteration);
    else if (event.type === 'bridge-call') this.#hostCalls.set(event.requestId, event.name);
    else if (event.type === 'bridge-result') this.#hostCalls.delete(event.requestId);
    else if (event.type === 'final' || event.type === 'call-error')
      this.#steps.delete(event.callId);
  }

  /** What `event` retries, e.g. `llm_query in step 2`. */
  nameOf(event: ModelRetryEvent): string {
    const step = this.#steps.get(event.callId);
    const where = `${step === undefined ? 'the first step' : `step ${step}`}${event.depth > 0 ? ` of the sub_rlm at depth ${event.depth}` : ''}`;
    if (event.requestId === undefined) return where;
    return `${this.#hostCalls.get(event.requestId) ?? 'a host call'} in ${where}`;
  }
}

/** `0.5 s`, `3 s`, `12 s`, `2 min 5 s`. */
function formatSeconds(ms: number): string {
  const seconds = Math.round(ms / 100) / 10;
  if (seconds < 10) return `${seconds} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const whole = Math.round(seconds);
  return whole % 60 === 0 ? `${whole / 60} min` : `${Math.floor(whole / 60)} min ${whole % 60} s`;
}
