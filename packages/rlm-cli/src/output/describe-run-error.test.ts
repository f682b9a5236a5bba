import {
  AbortedError,
  BudgetExhaustedError,
  ModelCallError,
  NoFinalAnswerError,
  SandboxError,
} from '@rlm/core';
import { describe, expect, test } from 'vitest';
import { describeRunError } from './describe-run-error.js';

describe('describeRunError', () => {
  test('an abort exits 130', () => {
    expect(describeRunError(new AbortedError())).toEqual({
      message: 'aborted',
      exitCode: 130,
      partialAnswer: undefined,
    });
  });

  test('no final answer keeps the partial answer and says what to do', () => {
    const error = new NoFinalAnswerError('@rlm/core: no answer', {
      diagnostics: {
        iterations: 5,
        depth: 0,
        lastResponse: 'so far',
        reason: 'iterations ran out',
      },
      partialAnswer: 'probably 42',
    });
    expect(describeRunError(error)).toEqual({
      message:
        'the model gave no final answer after 5 iterations (iterations ran out); raise --max-iterations or ask a narrower question',
      exitCode: 1,
      partialAnswer: 'probably 42',
    });
  });

  test('a run stopped at --max-errors says so, names the last error and keeps the partial answer', () => {
    const error = new NoFinalAnswerError('@rlm/core: stopped', {
      diagnostics: {
        iterations: 4,
        depth: 0,
        lastResponse: 'trying',
        reason: '3 code blocks in a row threw an error (maxConsecutiveErrors is 3)',
        consecutiveErrors: { count: 3, lastError: 'TypeError: x is not a function' },
      },
      partialAnswer: 'half done',
    });
    expect(describeRunError(error)).toEqual({
      message:
        'the run stopped after 3 code blocks in a row threw an error (the last: TypeError: x is not a function); raise --max-errors or ask a narrower question',
      exitCode: 1,
      partialAnswer: 'half done',
    });
  });

  test('model, budget and sandbox faults: one line, package prefix dropped', () => {
    const model = new ModelCallError(
      '@rlm/anthropic: the Messages API answered 400 invalid_request_error: bad\nthing.',
      { status: 400 },
    );
    expect(describeRunError(model).message).toBe(
      'the model call failed: the Messages API answered 400 invalid_request_error: bad thing.',
    );
    const budget = new BudgetExhaustedError('@rlm/core: 100 tokens spent', {
      budget: 'tokens',
      partialAnswer: 'half',
    });
    expect(describeRunError(budget)).toEqual({
      message:
        'the run spent its token budget before answering (100 tokens spent); raise --max-tokens',
      exitCode: 1,
      partialAnswer: 'half',
    });
    const cost = new BudgetExhaustedError(
      '@rlm/core: the cost budget ($0.01) is spent ($0.0123 used); raise budget.maxCostUsd',
      { budget: 'cost' },
    );
    expect(describeRunError(cost).message).toBe(
      'the run spent its cost budget before answering (the cost budget ($0.01) is spent ($0.0123 used)); raise --max-cost',
    );
    expect(describeRunError(new SandboxError('@rlm/sandbox-ses: worker died')).message).toBe(
      'the sandbox failed: worker died',
    );
    expect(describeRunError(new Error('x'.repeat(1000))).message).toHaveLength(600);
  });

  test('the settings a model error names become the flags that set them', () => {
    const timeout = new ModelCallError(
      '@rlm/anthropic: the Messages API did not answer within timeoutMs (60,000 ms); gave up after 3 attempts over 3 min 2 s. Raise timeoutMs or maxRetries, lower maxTokens, or check the network.',
      { reason: 'timeout', settings: ['timeoutMs', 'maxRetries'] },
    );
    expect(describeRunError(timeout).message).toBe(
      'the model call failed: the Messages API did not answer within --request-timeout (60,000 ms); gave up after 3 attempts over 3 min 2 s. Raise --request-timeout or --max-retries, lower maxTokens, or check the network.',
    );
    const wait = new ModelCallError('asked to wait 60 min, longer than maxRetryAfterMs allows', {
      settings: ['maxRetryAfterMs'],
    });
    expect(describeRunError(wait).message).toBe(
      'the model call failed: asked to wait 60 min, longer than --max-retry-wait allows',
    );
    const unreachable = new ModelCallError(
      '@rlm/openai: could not reach the Chat Completions API at http://127.0.0.1:9/v1 (connect ECONNREFUSED 127.0.0.1:9); gave up after 1 attempt (0 s). Check that the server is running and OPENAI_BASE_URL (or the baseURL setting), or raise maxRetries.',
      { reason: 'network', settings: ['maxRetries', 'baseURL'] },
    );
    expect(describeRunError(unreachable).message).toBe(
      'the model call failed: could not reach the Chat Completions API at http://127.0.0.1:9/v1 (connect ECONNREFUSED 127.0.0.1:9); gave up after 1 attempt (0 s). Check that the server is running and OPENAI_BASE_URL (or --base-url), or raise --max-retries.',
    );
    const unnamed = new ModelCallError('maxRetries is a word here', { settings: [] });
    expect(describeRunError(unnamed).message).toBe(
      'the model call failed: maxRetries is a word here',
    );
  });
});
