import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, test } from 'vitest';
import { toModelCallError } from './to-model-call-error.js';

const context = {
  secrets: ['key-one-1234', null, 'token-two-5678'],
  baseURL: 'http://127.0.0.1:1',
  timeoutMs: 1000,
  attempts: 3,
  elapsedMs: 2_500,
};

describe('toModelCallError', () => {
  test('a status without an API error body still names the status and the body', () => {
    const error = toModelCallError(
      Anthropic.APIError.generate(502, 'Bad gateway\n<html>', undefined, new Headers()),
      context,
    );
    expect(error).toMatchObject({ status: 502, retryable: true, settings: ['maxRetries'] });
    expect(error.message).toMatch(
      /^@rlm\/anthropic: the Messages API answered 502 error: "Bad gateway\\n<html>"; gave up after 3 attempts over 2\.5 s\. Try again later, lower concurrency, or raise maxRetries\.$/,
    );
  });

  test('a non-SDK error keeps its message on one line, with every secret scrubbed', () => {
    const error = toModelCallError(new Error('saw key-one-1234\nand token-two-5678'), context);
    expect(error.message).toBe('@rlm/anthropic: the request failed: saw [redacted] and [redacted]');
    expect(error).toMatchObject({ status: undefined, retryable: false, cause: undefined });
  });

  test('a placeholder key of a few characters does not garble the message', () => {
    const error = toModelCallError(new Error('maxRetries exceeded'), {
      ...context,
      secrets: ['x'],
    });
    expect(error.message).toBe('@rlm/anthropic: the request failed: maxRetries exceeded');
  });

  test('a wait longer than the cap says how long the API asked for and names the setting', () => {
    const body = { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } };
    const error = toModelCallError(
      Anthropic.APIError.generate(429, body, 'slow down', new Headers({ 'retry-after': '3600' })),
      {
        ...context,
        attempts: 1,
        refusedWait: { retryAfterMs: 3_600_000, maxRetryAfterMs: 60_000 },
      },
    );
    expect(error.message).toBe(
      '@rlm/anthropic: the Messages API answered 429 rate_limit_error: slow down, and asked to wait 60 min before a retry, longer than maxRetryAfterMs (60,000 ms) allows. Try again later or raise maxRetryAfterMs.',
    );
    expect(error).toMatchObject({ reason: 'rate-limited', settings: ['maxRetryAfterMs'] });
  });

  test.each([
    [400, 'tools: unsupported for this model', 'tools-unsupported'],
    [400, 'max_tokens: must be positive', 'invalid-request'],
    [401, 'invalid x-api-key', 'authentication'],
    [429, 'rate limited', 'rate-limited'],
    [529, 'overloaded', 'server'],
  ] as const)('status %i (%s) is classified as %s', (status, message, reason) => {
    const body = { type: 'error', error: { type: 'error', message } };
    const error = toModelCallError(
      Anthropic.APIError.generate(status, body, message, new Headers()),
      context,
    );
    expect(error.reason).toBe(reason);
  });
});
