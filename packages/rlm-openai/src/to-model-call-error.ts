import {
  AttemptTimeoutError,
  describeAttempts,
  isRetryableStatus,
  isToolsRefusal,
  ModelCallError,
  type ModelCallErrorReason,
  type ModelFailureContext,
  ResponseTooLargeError,
  refusedWaitError,
  responseTooLargeError,
  scrubModelCallError,
} from '@rlm/core';
import OpenAI from 'openai';
import { MalformedCompletionError } from './malformed-completion-error.js';
import { StreamCutError } from './stream-cut-error.js';

/** What the error message may mention about the failed call. */
export interface ModelCallErrorContext extends ModelFailureContext {
  /**
   * Where the base URL came from, as advice names it: `the baseURL setting` when it was given,
   * else (the default) `OPENAI_BASE_URL (or the baseURL setting)`.
   */
  readonly baseURLSource?: string;
  /** The server, as advice names it: `the ollama server`; default `the server`. */
  readonly server?: string;
}

const environmentBaseURL = 'OPENAI_BASE_URL (or the baseURL setting)';

const prefix = '@rlm/openai:';

/**
 * Classifies an API error status. A 400, 404 or 422 whose message is about tools or function
 * calling is `tools-unsupported`: what Ollama (`does not support tools`), vLLM (`"auto" tool
 * choice requires --enable-auto-tool-choice`) and llama.cpp (`tools param requires --jinja`)
 * answer when the model or server cannot call tools.
 */
export function reasonForStatus(status: number, detail: string): ModelCallErrorReason {
  if (status === 401 || status === 403) return 'authentication';
  if (status === 429) return 'rate-limited';
  if (status === 408) return 'timeout';
  if (status >= 500 || status === 409) return 'server';
  if ((status === 400 || status === 404 || status === 422) && isToolsRefusal(detail)) {
    return 'tools-unsupported';
  }
  return 'invalid-request';
}

function advice(status: number, context: ModelCallErrorContext): string {
  switch (status) {
    case 400:
      return 'Check the model id and maxTokens (some servers want maxTokensParameter max_tokens); if the messages are at fault, report it as an @rlm/openai bug.';
    case 401:
      return 'Check OPENAI_API_KEY (or the apiKey setting).';
    case 403:
      return 'The API key may not use this model; check its project and permissions.';
    case 404:
      return `Check the model id and ${context.baseURLSource ?? environmentBaseURL}; it must end where /chat/completions is served, usually /v1.`;
    case 413:
      return 'The request is too large; shorten the prompt or the history.';
    default:
      return isRetryableStatus(status)
        ? 'Try again later, lower concurrency, or raise maxRetries.'
        : 'Check the server logs.';
  }
}

function oneLine(text: string, maxLength = 400): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > maxLength ? `${line.slice(0, maxLength)}...` : line;
}

/** The innermost message of an error's `cause` chain, e.g. `other side closed`. */
export function rootCause(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return oneLine(current instanceof Error ? current.message : String(current), 120);
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}

function describeFailure(error: unknown, context: ModelCallErrorContext): ModelCallError {
  if (error instanceof ResponseTooLargeError) {
    return responseTooLargeError(
      prefix,
      `the Chat Completions API at ${context.baseURL}`,
      error,
      context,
    );
  }
  if (error instanceof AttemptTimeoutError && error.received > 0) {
    return new ModelCallError(
      `${prefix} the Chat Completions API at ${context.baseURL} went silent for timeoutMs (${count(context.timeoutMs)} ms) mid-answer, after ${count(error.received)} chunks; ${describeAttempts(context)}. Raise timeoutMs or maxRetries, or check the server.`,
      { retryable: true, reason: 'timeout', settings: ['timeoutMs', 'maxRetries'] },
    );
  }
  if (error instanceof AttemptTimeoutError || error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelCallError(
      `${prefix} the Chat Completions API at ${context.baseURL} did not answer within timeoutMs (${count(context.timeoutMs)} ms); ${describeAttempts(context)}. Raise timeoutMs or maxRetries, lower maxTokens, or check the server.`,
      { retryable: true, reason: 'timeout', settings: ['timeoutMs', 'maxRetries'] },
    );
  }
  if (error instanceof OpenAI.APIUserAbortError) {
    return new ModelCallError(`${prefix} the request was aborted.`, { reason: 'aborted' });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new ModelCallError(
      `${prefix} could not reach the Chat Completions API at ${context.baseURL} (${rootCause(error)}); ${describeAttempts(context)}. Check that ${context.server ?? 'the server'} is running and ${context.baseURLSource ?? environmentBaseURL}, or raise maxRetries.`,
      { retryable: true, reason: 'network', settings: ['maxRetries', 'baseURL'] },
    );
  }
  if (error instanceof StreamCutError) {
    return new ModelCallError(
      `${prefix} the Chat Completions API at ${context.baseURL} stopped mid-answer (${error.problem}); ${describeAttempts(context)}. Check the network and the server, or raise maxRetries.`,
      { retryable: true, reason: 'network', settings: ['maxRetries'] },
    );
  }
  if (error instanceof MalformedCompletionError) {
    return new ModelCallError(
      `${prefix} the server at ${context.baseURL} answered with a body that is not a chat completion (${error.problem}); ${describeAttempts(context)}. Check that ${context.baseURLSource ?? environmentBaseURL} is a Chat Completions API, usually ending in /v1.`,
      { retryable: true, reason: 'server', settings: ['maxRetries', 'baseURL'] },
    );
  }
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    const status = error.status;
    const type = error.type ?? error.code ?? 'error';
    const body = error.error as { message?: unknown } | undefined;
    const apiMessage =
      typeof body?.message === 'string' ? body.message : error.message.replace(/^\d+\s*/, '');
    const detail = oneLine(apiMessage).replace(/\.$/, '');
    const requestId = error.requestID ? ` (request id ${error.requestID})` : '';
    const answered = `${prefix} the Chat Completions API answered ${status} ${type}: ${detail}`;
    const reason = reasonForStatus(status, detail);
    const { refusedWait } = context;
    if (refusedWait) {
      return refusedWaitError(answered, refusedWait, { status, reason, suffix: requestId });
    }
    const retryable = isRetryableStatus(status);
    const help =
      reason === 'tools-unsupported'
        ? 'The model or server does not take tools; rlm falls back to its text protocol.'
        : advice(status, context);
    return new ModelCallError(
      `${answered}${retryable ? `; ${describeAttempts(context)}` : ''}. ${help}${requestId}`,
      {
        status,
        retryable,
        reason,
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
 * error type and message, and what to do. The SDK error is not attached as `cause` (it holds
 * headers and bodies that may echo credentials), and credentials are scrubbed from the message.
 */
export function toModelCallError(error: unknown, context: ModelCallErrorContext): ModelCallError {
  return scrubModelCallError(describeFailure(error, context), context.secrets);
}
