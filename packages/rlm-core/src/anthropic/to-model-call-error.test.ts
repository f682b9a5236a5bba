import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, test } from 'vitest';
import { toModelCallError } from './to-model-call-error.js';

const context = {
  secrets: ['key-one-1234', null, 'token-two-5678'],
  baseURL: 'http://127.0.0.1:1',
  timeoutMs: 1000,
  maxRetries: 2,
};

describe('toModelCallError', () => {
  test('a status without an API error body still names the status and the body', () => {
    const error = toModelCallError(
      Anthropic.APIError.generate(502, 'Bad gateway\n<html>', undefined, new Headers()),
      context,
    );
    expect(error).toMatchObject({ status: 502, retryable: true });
    expect(error.message).toMatch(
      /^@rlm\/core\/anthropic: the Messages API answered 502 error: "Bad gateway\\n<html>"\. Still failing after up to 2 retries/,
    );
  });

  test('a non-SDK error keeps its message on one line, with every secret scrubbed', () => {
    const error = toModelCallError(new Error('saw key-one-1234\nand token-two-5678'), context);
    expect(error.message).toBe(
      '@rlm/core/anthropic: the request failed: saw [redacted] and [redacted]',
    );
    expect(error).toMatchObject({ status: undefined, retryable: false, cause: undefined });
  });

  test('a placeholder key of a few characters does not garble the message', () => {
    const error = toModelCallError(new Error('maxRetries exceeded'), {
      ...context,
      secrets: ['x'],
    });
    expect(error.message).toBe('@rlm/core/anthropic: the request failed: maxRetries exceeded');
  });
});
