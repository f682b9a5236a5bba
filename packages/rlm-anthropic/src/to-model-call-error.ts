import Anthropic from '@anthropic-ai/sdk';
import {
  AttemptTimeoutError,
  describeAttempts,
  isRetryableStatus,
  ModelCallError,
  type ModelCallErrorReason,
  type ModelFailureContext,
  ResponseTooLargeError,
  refusedWaitError,
  responseTooLargeError,
  scrubModelCallError,
} from '@rlm/core';
import { MalformedBodyError } from './malformed-body-error.js';
import { StreamApiError } from './stream-api-error.js';
import { StreamCutError } from './stream-cut-error.js';

/** What the error message may mention about the failed call. */
export type ModelCallErrorContext = ModelFailureContext;

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

function count(value: number): string {
  return value.toLocaleString('en-US');
}

function describeFailure(error: unknown, context: ModelCallErrorContext): ModelCallError {
  if (error instanceof ResponseTooLargeError) {
    return responseTooLargeError(prefix, 'the Messages API', error, context);
  }
  if (
    (error instanceof AttemptTimeoutError && error.received === 0) ||
    error instanceof Anthropic.APIConnectionTimeoutError
  ) {
    return new ModelCallError(
      `${prefix} the Messages API did not answer within timeoutMs (${count(context.timeoutMs)} ms); ${describeAttempts(context)}. Raise timeoutMs or maxRetries, lower maxTokens, or check the network.`,
      { retryable: true, reason: 'timeout', settings: ['timeoutMs', 'maxRetries'] },
    );
  }
  if (error instanceof AttemptTimeoutError && error.received > 0) {
    return new ModelCallError(
      `${prefix} the Messages API's streamed answer went silent for timeoutMs (${count(context.timeoutMs)} ms) after ${count(error.received)} events; ${describeAttempts(context)}. Raise timeoutMs or maxRetries, or check the network.`,
      { retryable: true, reason: 'timeout', settings: ['timeoutMs', 'maxRetries'] },
    );
  }
  if (error instanceof StreamCutError) {
    return new ModelCallError(
      `${prefix} the Messages API's streamed answer stopped before its end (${oneLine(error.problem)}); ${describeAttempts(context)}. Check the network or a proxy in between, try again later, or raise maxRetries.`,
      { retryable: true, reason: 'network', settings: ['maxRetries'] },
    );
  }
  if (error instanceof StreamApiError) {
    const retryable = isRetryableStatus(error.status);
    const detail = oneLine(error.apiMessage).replace(/\.$/, '');
    return new ModelCallError(
      `${prefix} the Messages API stopped its streamed answer with ${error.errorType}: ${detail}${retryable ? `; ${describeAttempts(context)}` : ''}. ${advice(error.status)}`,
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
      `${prefix} could not reach the Messages API at ${context.baseURL} (${oneLine(rootCause(error))}); ${describeAttempts(context)}. Check the network and ANTHROPIC_BASE_URL (or the baseURL setting), or raise maxRetries.`,
      { retryable: true, reason: 'network', settings: ['maxRetries', 'baseURL'] },
    );
  }
  if (error instanceof MalformedBodyError) {
    const quoted = JSON.stringify(oneLine(error.firstBytes, 100));
    return new ModelCallError(
      `${prefix} the Messages API answered ${error.status} (content-type ${error.contentType}) with a body that is not a message: ${error.problem}; it starts ${quoted}; ${describeAttempts(context)}. Check that ANTHROPIC_BASE_URL (or the baseURL setting) is the Messages API, try again later, or raise maxRetries.`,
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
      return refusedWaitError(answered, refusedWait, {
        status,
        reason: reasonFor(status, detail),
        suffix: requestId,
      });
    }
    const retryable = isRetryableStatus(status);
    return new ModelCallError(
      `${answered}${retryable ? `; ${describeAttempts(context)}` : ''}. ${advice(status)}${requestId}`,
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
  return scrubModelCallError(describeFailure(error, context), context.secrets);
}
