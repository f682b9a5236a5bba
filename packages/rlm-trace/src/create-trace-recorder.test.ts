import type { RlmEvent } from '@rlm/core';
import { describe, expect, test } from 'vitest';
import { createTraceRecorder } from './create-trace-recorder.js';
import { createTrace, findCall, reduceTrace } from './reduce-trace.js';
import { sampleRunEvents } from './testing/sample-run-events.js';

/** A run whose one step makes `count` host calls, each with its result and model usage. */
function manyHostCalls(count: number): RlmEvent[] {
  const base = { callId: 'root', depth: 0 } as const;
  const events: RlmEvent[] = [
    { ...base, type: 'call-start', query: 'q' },
    { ...base, type: 'step-start', iteration: 1 },
    { ...base, type: 'code', iteration: 1, index: 0, code: 'for (...) await list_artifacts()' },
  ];
  for (let call = 0; call < count; call++) {
    const requestId = `bridge-${call}`;
    events.push(
      { ...base, type: 'bridge-call', requestId, name: 'list_artifacts' },
      {
        ...base,
        type: 'usage',
        requestId,
        usage: { inputTokens: 1, outputTokens: 1 },
        modelId: 'm',
        modelCalls: call,
      },
      {
        ...base,
        type: 'bridge-result',
        requestId,
        name: 'list_artifacts',
        ok: true,
        durationMs: 0,
        resultExcerpt: '[]',
      },
    );
  }
  return events;
}

/**
 * Process CPU time (microseconds) to record `events` into a new recorder; `Infinity` as soon as
 * it passes `budget` (so that a quadratic recorder fails fast instead of running for minutes).
 */
function recordingCpuTime(events: readonly RlmEvent[], budget = Infinity): number {
  const started = process.cpuUsage();
  const spent = () => {
    const { user, system } = process.cpuUsage(started);
    return user + system;
  };
  const recorder = createTraceRecorder({ now: () => 0 });
  for (const [index, event] of events.entries()) {
    recorder.record(event);
    if (index % 1000 === 0 && spent() > budget) return Infinity;
  }
  const document = recorder.finish();
  const total = spent();
  expect(findCall(document, 'root')!.steps[0]!.hostCalls).toHaveLength(
    events.filter((event) => event.type === 'bridge-call').length,
  );
  return total;
}

describe('createTraceRecorder', () => {
  test('builds what reduceTrace builds, event by event', () => {
    const events = sampleRunEvents();
    const recorder = createTraceRecorder({ runId: 'run-1', now: () => 7 });
    let reduced = createTrace({ runId: 'run-1', startedAt: 7 });
    for (const event of events) {
      recorder.record(event);
      reduced = reduceTrace(reduced, event, 7);
      expect(recorder.trace).toEqual(reduced);
    }
  });

  test('a document read earlier is left as it was by later events', () => {
    const events = sampleRunEvents();
    const recorder = createTraceRecorder({ now: () => 0 });
    for (const event of events.slice(0, 12)) recorder.record(event);
    const early = recorder.trace;
    const snapshot = JSON.stringify(early);
    expect(recorder.trace).toBe(early);
    for (const event of events.slice(12)) recorder.record(event);
    expect(recorder.finish()).not.toBe(early);
    expect(JSON.stringify(early)).toBe(snapshot);
  });

  // Each event must cost the same however many came before: ten times the host calls cost
  // about ten times the CPU time (a copy of the step per event would cost a hundred times).
  test('host calls of one step cost linear work: 20,000 calls cost far less than 100 x 2,000', () => {
    const small = manyHostCalls(2_000);
    const large = manyHostCalls(20_000);
    const bound = 30;
    recordingCpuTime(small); // warm-up
    const ratios: number[] = [];
    for (let run = 0; run < 3; run++) {
      const smallCpu = recordingCpuTime(small);
      ratios.push(recordingCpuTime(large, 2 * bound * smallCpu) / smallCpu);
    }
    expect(Math.min(...ratios)).toBeLessThan(bound);
  });

  test('a sub_rlm child links to the oldest pending sub_rlm without a child', () => {
    const base = { callId: 'root', depth: 0 } as const;
    const subRlm = (requestId: string): RlmEvent => ({
      ...base,
      type: 'bridge-call',
      requestId,
      name: 'sub_rlm',
    });
    const recorder = createTraceRecorder({ now: () => 0 });
    for (const event of [
      { ...base, type: 'call-start', query: 'q' },
      { ...base, type: 'step-start', iteration: 1 },
      subRlm('a'),
      subRlm('b'),
      subRlm('c'),
      { ...base, type: 'bridge-result', requestId: 'a', name: 'sub_rlm', ok: false, durationMs: 1 },
      { callId: 'child-1', depth: 1, parentCallId: 'root', type: 'call-start', query: 'b?' },
      { callId: 'child-2', depth: 1, parentCallId: 'root', type: 'call-start', query: 'c?' },
      { callId: 'child-3', depth: 1, parentCallId: 'root', type: 'call-start', query: 'x?' },
    ] satisfies RlmEvent[]) {
      recorder.record(event);
    }
    const trace = recorder.trace;
    expect(findCall(trace, 'root')!.steps[0]!.hostCalls.map((call) => call.childCallId)).toEqual([
      undefined,
      'child-1',
      'child-2',
    ]);
    expect(findCall(trace, 'child-2')!.parentRequestId).toBe('c');
    expect(findCall(trace, 'child-3')!.parentRequestId).toBeUndefined();
    expect(findCall(trace, 'root')!.childCallIds).toEqual(['child-1', 'child-2', 'child-3']);
  });
});
