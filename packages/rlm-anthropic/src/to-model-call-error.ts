import Anthropic from '@anthropic-ai/sdk';
import { scrubSecrets, ModelCallError, type ModelCallErrorReason, formatDuration } from '@rlm/core';
import { AttemptTimeoutError } from './attempt-timeout-error.js';
import { MalformedBodyError } from './malformed-body-error.js';
import { StreamApiError } from './stream-api-error.js';
import { StreamCutError } from './stream-cut-error.js';

/** What the error message may mention about the failed call. */
export interface ModelCallErrorContext {
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

const prefix = '@rlm/anthropic:';

function advice(status: number): string {
  switch (status) {
    case 400:
      return 'Check the model id and maxTokens; if the messages are at fault, report it as an @rlm/core bug.';
    case 401:
      return 'Check ANTHROPIC_API_KEY (or the apiKey setting).';
    case 402:
      return "Check the Anthropic account's billing.";
    case 403:
      return 'The API key may not use this model or feature; check its workspace and permissions.';
    case 404:
      return 'Check the model id and ANTHROPIC_BASE_URL (or the baseURL setting).';
    case 413:
      return 'The request is too large; shorten the prompt or the history.';
    default:
      return isRetryableStatus(status)
        ? 'Try again later, lower concurrency, or raise maxRetries.'
        : 'See https://docs.claude.com/en/api/errors.';
  }
}

/** Classifies an API error status (and, for 400/422, whether it is about tools). */
function reasonFor(status: number, detail: string): ModelCallErrorReason {
  if (status === 401 || status === 403) return 'authentication';
  if (status === 429) return 'rate-limited';
  if (status === 408) return 'timeout';
  if (status >= 500 || status === 409) return 'server';
  if ((status === 400 || status === 422) && /\btool/i.test(detail)) return 'tools-unsupported';
  return 'invalid-request';
}

/** Whether a status is worth retrying: 408, 409, 429 and 5xx (529 included). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Collapses whitespace so a message stays on one line, and bounds its length. */
function oneLine(text: string, maxLength = 400): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > maxLength ? `${line.slice(0, maxLength)}...` : line;
}

/** The innermost message of an error's `cause` chain, e.g. `other side closed`. */
function rootCause(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

/** `1 attempt (0.2 s)` or `3 attempts over 3 min 2 s`: how long the call went on. */
function triedFor(context: ModelCallErrorContext): string {
  const time = formatDuration(context.elapsedMs);
  return context.attempts === 1
    ? `gave up after 1 attempt (${time})`
    : `gave up after ${context.attempts} attempts over ${time}`;
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}

function describeFailure(error: unknown, context: ModelCallErrorContext): ModelCallError {
  if (
    (error instanceof AttemptTimeoutError && error.eventsReceived === 0) ||
    error instanceof Anthropic.APIConnectionTimeoutError
  ) {
    return new ModelCallError(
      `${prefix} the Messages API did not answer within timeoutMs (${count(context.timeoutMs)} ms); ${triedFor(context)}. Raise timeoutMs or maxRetries, lower maxTokens, or check the network.`,
      { retryable: true, reason: 'timeout', settings: ['timeoutMs', 'maxRetries'] },
    );
  }
  if (error instanceof AttemptTimeoutError && error.eventsReceived > 0) {
    return new ModelCallError(
      `${prefix} the Messages API's streamed answer went silent for timeoutMs (${count(context.timeoutMs)} ms) after ${count(error.eventsReceived)} events; ${triedFor(context)}. Raise timeoutMs or maxRetries, or check the network.`,
      { retryable: true, reason: 'timeout', settings: ['timeoutMs', 'maxRetries'] },
    );
  }
  if (error instanceof StreamCutError) {
    return new ModelCallError(
      `${prefix} the Messages API's streamed answer stopped before its end (${oneLine(error.problem)}); ${triedFor(context)}. Check the network or a proxy in between, try again later, or raise maxRetries.`,
      { retryable: true, reason: 'network', settings: ['maxRetries'] },
    );
  }
  if (error instanceof StreamApiError) {
    const retryable = isRetryableStatus(error.status);
    const detail = oneLine(error.apiMessage).replace(/\.$/, '');
    return new ModelCallError(
      `${prefix} the Messages API stopped its streamed answer with ${error.errorType}: ${detail}${retryable ? `; ${triedFor(context)}` : ''}. ${advice(error.status)}`,
      {
        status: error.status,
        retryable,
        reason: reasonFor(error.status, detail),
        settings: retryable ? ['maxRetries'] : [],
      },
    );
  }
  if (error instanceof Anthropic.APIUserAbortError) {
    return new ModelCallError(`${prefix} the request was aborted.`, { reason: 'aborted' });
  }
  if (error instanceof Anthropic.APIConnectionError) {
    return new ModelCallError(
      `${prefix} could not reach the Messages API at ${context.baseURL} (${oneLine(rootCause(error))}); ${triedFor(context)}. Check the network and ANTHROPIC_BASE_URL (or the baseURL setting), or raise maxRetries.`,
      { retryable: true, reason: 'network', settings: ['maxRetries', 'baseURL'] },
    );
  }
  if (error instanceof MalformedBodyError) {
    const quoted = JSON.stringify(oneLine(error.firstBytes, 100));
    return new ModelCallError(
      `${prefix} the Messages API answered ${error.status} (content-type ${error.contentType}) with a body that is not a message: ${error.problem}; it starts ${quoted}; ${triedFor(context)}. Check that ANTHROPIC_BASE_URL (or the baseURL setting) is the Messages API, try again later, or raise maxRetries.`,
      {
        status: error.status,
        retryable: true,
        reason: 'server',
        settings: ['maxRetries', 'baseURL'],
      },
    );
  }
  if (error instanceof Anthropic.APIError && error.status !== undefined) {
    const status = error.status;
    const type = error.type ?? 'error';
    // Without an API error body (say, a proxy's page), the SDK's message is `<status> <body>`.
    const apiMessage = error.apiMessage ?? error.message.replace(/^\d+\s*/, '');
    const detail = oneLine(apiMessage).replace(/\.$/, '');
    const requestId = error.requestID ? ` (request-id ${error.requestID})` : '';
    const answered = `${prefix} the Messages API answered ${status} ${type}: ${detail}`;
    const { refusedWait } = context;
    if (refusedWait) {
      return new ModelCallError(
        `${answered}, and asked to wait ${formatDuration(refusedWait.retryAfterMs)} before a retry, longer than maxRetryAfterMs (${count(refusedWait.maxRetryAfterMs)} ms) allows. Try again later or raise maxRetryAfterMs.${requestId}`,
        {
          status,
          retryable: true,
          reason: reasonFor(status, detail),
          settings: ['maxRetryAfterMs'],
        },
      );
    }
    const retryable = isRetryableStatus(status);
    return new ModelCallError(
      `${answered}${retryable ? `; ${triedFor(context)}` : ''}. ${advice(status)}${requestId}`,
      {
        status,
        retryable,
        reason: reasonFor(status, detail),
        settings: [
          ...(retryable ? (['maxRetries'] as const) : []),
          ...(status === 404 ? (['baseURL'] as const) : []),
        ],
      },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelCallError(`${prefix} the request failed: ${oneLine(message)}`);
}

/**
 * Turns whatever the SDK threw into a one-line `ModelCallError` naming the status, the API's
 * error type and message, and what to do. The SDK error is not attached as `cause`: it holds
 * raw headers and bodies that may echo credentials. Credentials are also scrubbed from the
 * message.
 */
export function toModelCallError(error: unknown, context: ModelCallErrorContext): ModelCallError {
  const described = describeFailure(error, context);
  const message = scrubSecrets(described.message, context.secrets);
  if (message === described.message) return described;
  return new ModelCallError(message, {
    status: described.status,
    retryable: described.retryable,
    reason: described.reason,
    settings: described.settings,
  });
}
