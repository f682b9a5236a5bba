import { ModelCallError, type ModelCallErrorReason } from './errors/model-call-error.js';
import { formatDuration } from './format-duration.js';
import type { ResponseTooLargeError } from './response-too-large-error.js';
import { scrubSecrets } from './scrub-secrets.js';

/** What a provider adapter's error message may mention about a failed model call. */
export interface ModelFailureContext {
  /** Credentials (API key, auth token) scrubbed from every message, whatever its source. */
  readonly secrets: readonly (string | null | undefined)[];
  readonly baseURL: string;
  readonly timeoutMs: number;
  /** Attempts made, the failed one included (1 when nothing was retried). */
  readonly attempts: number;
  /** Milliseconds from the start of the first attempt to the failure, waits included. */
  readonly elapsedMs: number;
  /**
   * Set when the API asked to wait longer before a retry than the adapter allows: the wait it
   * asked for and the cap (`maxRetryAfterMs`), in milliseconds.
   */
  readonly refusedWait?: { readonly retryAfterMs: number; readonly maxRetryAfterMs: number };
}

/** Whether an HTTP status is worth retrying: 408, 409, 429 and 5xx (529 included). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** How long a failed call went on: `gave up after 1 attempt (200 ms)` or `... 3 attempts over 3 min 2 s`. */
export function describeAttempts(context: ModelFailureContext): string {
  const time = formatDuration(context.elapsedMs);
  return context.attempts === 1
    ? `gave up after 1 attempt (${time})`
    : `gave up after ${context.attempts} attempts over ${time}`;
}

/**
 * The error for an API answer (`answered`: what the API said, one line) whose requested wait
 * before a retry was over `maxRetryAfterMs`: it names the wait, the cap and the setting to raise.
 * `suffix` ends the message (e.g. the request id).
 */
export function refusedWaitError(
  answered: string,
  refusedWait: NonNullable<ModelFailureContext['refusedWait']>,
  options: {
    readonly status: number;
    readonly reason: ModelCallErrorReason;
    readonly suffix: string;
  },
): ModelCallError {
  const cap = refusedWait.maxRetryAfterMs.toLocaleString('en-US');
  return new ModelCallError(
    `${answered}, and asked to wait ${formatDuration(refusedWait.retryAfterMs)} before a retry, longer than maxRetryAfterMs (${cap} ms) allows. Try again later or raise maxRetryAfterMs.${options.suffix}`,
    {
      status: options.status,
      retryable: true,
      reason: options.reason,
      settings: ['maxRetryAfterMs'],
    },
  );
}

/**
 * The error for a response past `maxResponseBytes` once its retries ran out. `api` names what
 * answered, as the adapter's messages do: `the Messages API`.
 */
export function responseTooLargeError(
  prefix: string,
  api: string,
  error: ResponseTooLargeError,
  context: ModelFailureContext,
): ModelCallError {
  return new ModelCallError(
    `${prefix} ${api} ${error.failureDetail}; ${describeAttempts(context)}. Raise maxResponseBytes, or check that the baseURL setting is the API (an answer that never ends is cut at the cap).`,
    { retryable: true, reason: 'server', settings: ['maxResponseBytes', 'baseURL'] },
  );
}

/** `error` with every secret scrubbed from its message (the same error when none occurs). */
export function scrubModelCallError(
  error: ModelCallError,
  secrets: readonly (string | null | undefined)[],
): ModelCallError {
  const message = scrubSecrets(error.message, secrets);
  if (message === error.message) return error;
  return new ModelCallError(message, {
    status: error.status,
    retryable: error.retryable,
    reason: error.reason,
    settings: error.settings,
  });
}
