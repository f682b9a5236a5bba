import { describe, expect, test } from 'vitest';
import { formatModelRetry } from './format-model-retry.js';

const base = {
  type: 'model-retry',
  callId: 'call-1',
  depth: 0,
  attempt: 2,
  maxAttempts: 3,
  requestedByApi: false,
  reason: 'server',
} as const;

describe('formatModelRetry', () => {
  test('one stderr line: which call, what the API did, the wait, the attempt', () => {
    expect(
      formatModelRetry(
        {
          ...base,
          delayMs: 3_000,
          requestedByApi: true,
          reason: 'rate-limited',
          status: 429,
          detail: 'answered 429 rate_limit_error',
        },
        'step 2',
      ),
    ).toBe(
      'rlm: step 2: the API answered 429 rate_limit_error; retrying in 3 s, as the API asked (attempt 2 of 3)\n',
    );
    expect(
      formatModelRetry(
        { ...base, delayMs: 500, reason: 'timeout', detail: 'did not answer within 60 s' },
        'llm_query in step 1',
      ),
    ).toBe(
      'rlm: llm_query in step 1: the API did not answer within 60 s; retrying in 0.5 s (attempt 2 of 3)\n',
    );
    expect(formatModelRetry({ ...base, delayMs: 125_000, detail: 'answered\n503' }, 'step 1')).toBe(
      'rlm: step 1: the API answered 503; retrying in 2 min 5 s (attempt 2 of 3)\n',
    );
  });

  test('a batch line names the job, then the call', () => {
    expect(
      formatModelRetry(
        { ...base, delayMs: 1_000, detail: 'answered 529 overloaded_error' },
        'llm_query in step 2',
        'rlm: id 7: ',
      ),
    ).toBe(
      'rlm: id 7: llm_query in step 2: the API answered 529 overloaded_error; retrying in 1 s (attempt 2 of 3)\n',
    );
  });
});
