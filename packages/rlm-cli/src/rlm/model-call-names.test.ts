import type { RlmEvent } from '@rlm/core';
import { describe, expect, test } from 'vitest';
import { ModelCallNames } from './model-call-names.js';

describe('ModelCallNames', () => {
  test('names the step, the host call and the sub_rlm child a retry is for', () => {
    const names = new ModelCallNames();
    const retry = (callId: string, depth: number, requestId?: string) =>
      names.nameOf({
        type: 'model-retry',
        ...{ callId, depth, attempt: 2, maxAttempts: 3, delayMs: 1, requestedByApi: false },
        ...{ reason: 'server', detail: 'answered 500', ...(requestId ? { requestId } : {}) },
      });
    expect(retry('call-1', 0)).toBe('the first step');
    const events: RlmEvent[] = [
      { type: 'step-start', callId: 'call-1', depth: 0, iteration: 1 },
      { type: 'step-complete', callId: 'call-1', depth: 0, iteration: 1, durationMs: 1 },
      { type: 'step-start', callId: 'call-1', depth: 0, iteration: 2 },
      {
        type: 'bridge-call',
        callId: 'call-1',
        depth: 0,
        requestId: 'bridge-1',
        name: 'llm_query_batched',
      },
      { type: 'bridge-call', callId: 'call-1', depth: 0, requestId: 'bridge-2', name: 'sub_rlm' },
      { type: 'call-start', callId: 'call-2', depth: 1, query: 'q', parentCallId: 'call-1' },
      { type: 'step-start', callId: 'call-2', depth: 1, iteration: 1 },
      { type: 'bridge-call', callId: 'call-2', depth: 1, requestId: 'bridge-3', name: 'llm_query' },
    ];
    for (const event of events) names.observe(event);
    expect(retry('call-1', 0)).toBe('step 2');
    expect(retry('call-1', 0, 'bridge-1')).toBe('llm_query_batched in step 2');
    expect(retry('call-2', 1)).toBe('step 1 of the sub_rlm at depth 1');
    expect(retry('call-2', 1, 'bridge-3')).toBe('llm_query in step 1 of the sub_rlm at depth 1');
  });
});
