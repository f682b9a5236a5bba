import { expect, test } from 'vitest';
import { formatServedRequestLog } from './served-request-log.js';

test('an answered request: every field on one line', () => {
  expect(
    formatServedRequestLog({
      startedAt: Date.UTC(2026, 10, 28, 10, 0, 0),
      requestId: 'chatcmpl-abc',
      protocol: 'openai',
      model: 'rlm:anthropic:claude-sonnet-5-5',
      stream: true,
      status: 200,
      outcome: 'answered',
      usage: {
        inputTokens: 1000,
        outputTokens: 200,
        cacheReadTokens: 500,
        cacheWriteTokens: 100,
        modelCalls: 3,
        costUsd: 0.0121,
      },
      durationMs: 5120.4,
      runId: '20261128-100000-3fa9c1',
    }),
  ).toBe(
    'time=2026-11-28T10:00:00.000Z id=chatcmpl-abc protocol=openai model=rlm:anthropic:claude-sonnet-5-5 stream=true status=200 outcome=answered tokens=1800 model_calls=3 cost_usd=0.012100 ms=5120 run=20261128-100000-3fa9c1',
  );
});

test('a rejected request: no usage, the error code, odd values quoted', () => {
  const line = formatServedRequestLog({
    startedAt: 0,
    requestId: 'mcp-1',
    protocol: 'mcp',
    model: 'my model "x"',
    status: 404,
    outcome: 'rejected',
    durationMs: 0.2,
    error: 'model_not_found',
  });
  expect(line).toBe(
    'time=1970-01-01T00:00:00.000Z id=mcp-1 protocol=mcp model="my model \\"x\\"" status=404 outcome=rejected ms=0 error=model_not_found',
  );
  expect(line).not.toContain('\n');
});

test('an unpriced run says its cost is unknown', () => {
  const line = formatServedRequestLog({
    startedAt: 0,
    requestId: 'r',
    protocol: 'openai',
    status: 200,
    outcome: 'answered',
    usage: {
      inputTokens: 1,
      outputTokens: 1,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      modelCalls: 1,
    },
    durationMs: 1,
  });
  expect(line).toContain('cost_usd=unknown');
});
