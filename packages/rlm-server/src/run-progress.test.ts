import type { RlmEvent } from '@rlm/core';
import { describe, expect, test } from 'vitest';
import { RunProgress } from './run-progress.js';

const usageEvent = (modelCalls: number, costUsd?: number): RlmEvent => ({
  type: 'usage',
  callId: 'call-1',
  depth: 0,
  usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 30 },
  modelId: 'scripted',
  modelCalls,
  ...(costUsd === undefined ? {} : { costUsd }),
});

describe('RunProgress', () => {
  test('reports steps, executions, children and the answer, numbered from 1', () => {
    const progress = new RunProgress();
    const reports = (
      [
        { type: 'call-start', callId: 'call-1', depth: 0, query: 'q' },
        { type: 'step-start', callId: 'call-1', depth: 0, iteration: 1 },
        { type: 'text', callId: 'call-1', depth: 0, iteration: 1, text: 'thinking' },
        { type: 'code', callId: 'call-1', depth: 0, iteration: 1, index: 0, code: 'x' },
        {
          type: 'execution',
          callId: 'call-1',
          depth: 0,
          iteration: 1,
          index: 0,
          output: '',
          error: 'ReferenceError: y is not defined',
          shownToModel: '',
          durationMs: 3.4,
        },
        { type: 'step-start', callId: 'call-2', depth: 1, iteration: 1 },
      ] satisfies RlmEvent[]
    ).map((event) => progress.observe(event));
    expect(reports.map((report) => report?.message)).toEqual([
      'run started',
      'step 1',
      undefined,
      undefined,
      'code failed: ReferenceError: y is not defined',
      '[depth 1] step 1',
    ]);
    expect(reports.filter(Boolean).map((report) => report!.sequence)).toEqual([1, 2, 3, 4]);
    expect(reports[1]).toMatchObject({ event: 'step-start', depth: 0, iteration: 1 });
  });

  test('keeps the usage so far, cost included once a call is priced', () => {
    const progress = new RunProgress({ intervalMs: 0 });
    expect(progress.observe(usageEvent(1))).toMatchObject({
      modelCalls: 1,
      tokens: 150,
      message: '1 model calls · 150 tokens',
    });
    const second = progress.observe(usageEvent(2, 0.5));
    expect(second).toMatchObject({ modelCalls: 2, tokens: 300, costUsd: 0.5 });
    expect(second?.message).toBe('2 model calls · 300 tokens · $0.5000');
    expect(progress.usage).toMatchObject({ inputTokens: 200, outputTokens: 40, modelCalls: 2 });
  });

  test('usage and host calls are reported at most once per interval; the usage still counts', () => {
    let now = 0;
    const progress = new RunProgress({ intervalMs: 250, now: () => now });
    const bridge = (requestId: string): RlmEvent => ({
      type: 'bridge-call',
      callId: 'call-1',
      depth: 0,
      requestId,
      name: 'llm_query',
    });
    expect(progress.observe(bridge('r1'))?.message).toBe('llm_query');
    expect(progress.observe(bridge('r2'))).toBeUndefined();
    expect(progress.observe(usageEvent(1))).toBeUndefined();
    now = 300;
    expect(progress.observe(usageEvent(2))?.modelCalls).toBe(2);
    expect(
      progress.observe({ type: 'step-start', callId: 'call-1', depth: 0, iteration: 2 }),
    ).toBeDefined();
    expect(progress.usage.inputTokens).toBe(200);
  });
});
