import type { ModelRetryEvent } from '@rlm/core';

/**
 * The stderr line announcing a retry of a model call, newline included, saying which call it
 * is for (`call`, which `ModelCallNames` names):
 * `rlm: llm_query in step 2: the API answered 429 rate_limit_error; retrying in 3 s (attempt 2 of 3)`.
 * Printed even with `--quiet`: a run that waits should say so. `prefix` starts it: a batch names
 * the job (`rlm: id 7: `).
 */
export function formatModelRetry(event: ModelRetryEvent, call: string, prefix = 'rlm: '): string {
  const wait = formatSeconds(event.delayMs);
  const asked = event.requestedByApi ? ', as the API asked' : '';
  const detail = event.detail.replace(/\s+/g, ' ').trim();
  return `${prefix}${call}: the API ${detail}; retrying in ${wait}${asked} (attempt ${event.attempt} of ${event.maxAttempts})\n`;
}

/** `0.5 s`, `3 s`, `12 s`, `2 min 5 s`. */
function formatSeconds(ms: number): string {
  const seconds = Math.round(ms / 100) / 10;
  if (seconds < 10) return `${seconds} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const whole = Math.round(seconds);
  return whole % 60 === 0 ? `${whole / 60} min` : `${Math.floor(whole / 60)} min ${whole % 60} s`;
}
