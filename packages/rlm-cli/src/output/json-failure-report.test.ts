import { ModelCallError, NoFinalAnswerError } from '@rlm/core';
import { expect, test } from 'vitest';
import { formatJsonFailure, jsonFailureReport } from './json-failure-report.js';
import { nothingSpent } from '../test-support/nothing-spent.js';
import { UsageError } from '../usage-error.js';

const rootUsage = {
  inputTokens: 10,
  outputTokens: 2,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  modelCalls: 4,
};
const spent = {
  iterations: 3,
  depthReached: 1,
  usage: rootUsage,
  callUsage: [{ callId: 'call-1', kind: 'root' as const, usage: rootUsage }],
  durationMs: 1234,
};

test('a model failure: name, the stderr line, the reason and what was spent', () => {
  const error = new ModelCallError('@rlm/core: rate limited\nretry later', {
    reason: 'rate-limited',
  });
  const report = jsonFailureReport(error, { spent });
  expect(report).toEqual({
    error: {
      name: 'ModelCallError',
      message: 'the model call failed: rate limited retry later',
      reason: 'rate-limited',
    },
    ...spent,
  });
  const line = formatJsonFailure(report);
  expect(line.endsWith('\n')).toBe(true);
  expect(line.slice(0, -1)).not.toContain('\n');
  expect(JSON.parse(line)).toEqual(report);
});

test('no final answer carries the partial answer; a usage error spent nothing', () => {
  const noAnswer = new NoFinalAnswerError('no answer', {
    diagnostics: { iterations: 3, depth: 0, lastResponse: 'maybe 4', reason: 'out of iterations' },
    partialAnswer: 'maybe 4',
  });
  expect(jsonFailureReport(noAnswer, { spent })).toMatchObject({
    error: { name: 'NoFinalAnswerError' },
    partialAnswer: 'maybe 4',
  });
  const usage = new UsageError('unknown option --x; run rlm --help for the list');
  expect(jsonFailureReport(usage, { message: usage.message })).toEqual({
    error: { name: 'UsageError', message: 'unknown option --x; run rlm --help for the list' },
    ...nothingSpent,
  });
});
