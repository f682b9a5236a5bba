import { describe, expect, test } from 'vitest';
import { ModelCallError } from './errors/model-call-error.js';
import {
  describeAttempts,
  isRetryableStatus,
  type ModelFailureContext,
  refusedWaitError,
  scrubModelCallError,
} from './model-failure-text.js';

const context: ModelFailureContext = {
  secrets: ['sk-test-0123456789'],
  baseURL: 'http://127.0.0.1:1',
  timeoutMs: 1_000,
  attempts: 1,
  elapsedMs: 200,
};

describe('model failure text', () => {
  test('retryable statuses are 408, 409, 429 and 5xx', () => {
    expect([408, 409, 429, 500, 529].map(isRetryableStatus)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect([400, 401, 403, 404, 413, 422].some(isRetryableStatus)).toBe(false);
  });

  test('attempts are told with how long they went on', () => {
    expect(describeAttempts(context)).toBe('gave up after 1 attempt (200 ms)');
    expect(describeAttempts({ ...context, attempts: 3, elapsedMs: 182_000 })).toBe(
      'gave up after 3 attempts over 3 min 2 s',
    );
  });

  test('a refused wait names the wait, the cap and the setting', () => {
    const error = refusedWaitError(
      'x: the API answered 429 rate_limit_error: slow down',
      { retryAfterMs: 600_000, maxRetryAfterMs: 60_000 },
      { status: 429, reason: 'rate-limited', suffix: ' (request-id r1)' },
    );
    expect(error.message).toBe(
      'x: the API answered 429 rate_limit_error: slow down, and asked to wait 10 min before a retry, longer than maxRetryAfterMs (60,000 ms) allows. Try again later or raise maxRetryAfterMs. (request-id r1)',
    );
    expect(error).toMatchObject({ status: 429, retryable: true, reason: 'rate-limited' });
    expect(error.settings).toEqual(['maxRetryAfterMs']);
  });

  test('secrets are scrubbed from the message; the rest of the error is kept', () => {
    const error = new ModelCallError('echoed sk-test-0123456789 back', {
      status: 401,
      reason: 'authentication',
      settings: ['baseURL'],
    });
    const scrubbed = scrubModelCallError(error, context.secrets);
    expect(scrubbed.message).toBe('echoed [redacted] back');
    expect(scrubbed).toMatchObject({ status: 401, retryable: false, reason: 'authentication' });
    expect(scrubbed.settings).toEqual(['baseURL']);
    const clean = new ModelCallError('nothing secret');
    expect(scrubModelCallError(clean, context.secrets)).toBe(clean);
  });
});
