import type { RlmEvent } from '@rlm/core';
import { describe, expect, test } from 'vitest';
import { createTraceRecorder } from './create-trace-recorder.js';
import { createTrace, findCall, finishTrace, reduceTrace } from './reduce-trace.js';
import { sampleRunEvents } from './testing/sample-run-events.js';
import type { TraceDocument } from './trace-document.js';

function replay(events: readonly RlmEvent[], start = 1_000_000): TraceDocument {
  return events.reduce(
    (trace, event) => reduceTrace(trace, event, 0),
    createTrace({ runId: 'run-1', startedAt: start }),
  );
}

describe('reduceTrace', () => {
  test('builds the call tree: the child hangs under the sub_rlm host call that started it', () => {
    const trace = replay(sampleRunEvents());
    expect(trace.rootCallId).toBe('call-1');
    expect(trace.query).toBe('Summarise the notes');
    const root = findCall(trace, 'call-1')!;
    expect(root.childCallIds).toEqual(['call-2']);
    const [llmQuery, subRlm] = root.steps[0]!.hostCalls;
    expect(llmQuery).toMatchObject({
      name: 'llm_query',
      argumentsExcerpt: 'What is in part 1?',
      resultExcerpt: 'Part 1 is about cats.',
      ok: true,
      durationMs: 20,
    });
    expect(subRlm).toMatchObject({ name: 'sub_rlm', childCallId: 'call-2', ok: true });
    expect(findCall(trace, 'call-2')).toMatchObject({
      parentCallId: 'call-1',
      parentRequestId: 'bridge-2',
      depth: 1,
      status: 'answered',
      final: { source: 'final-text', answerExcerpt: 'Part 2 is about dogs.' },
    });
    expect(trace.depthReached).toBe(1);
    expect(trace.steps).toBe(3);
  });

  test('a block keeps what the model was shown only when it differs from the output and error', () => {
    const base = { callId: 'call-1', depth: 0, at: 5 } as const;
    const events: RlmEvent[] = [
      { ...base, type: 'call-start', query: 'q' },
      { ...base, type: 'step-start', iteration: 1 },
      ...[0, 1, 2].map((index) => ({
        ...base,
        type: 'code' as const,
        iteration: 1,
        index,
        code: 'x',
      })),
      {
        ...base,
        type: 'execution',
        iteration: 1,
        index: 0,
        output: 'a',
        shownToModel: 'a',
        durationMs: 1,
      },
      {
        ...base,
        type: 'execution',
        iteration: 1,
        index: 1,
        output: 'a',
        error: 'boom',
        shownToModel: 'a\nError: boom',
        durationMs: 1,
      },
      {
        ...base,
        type: 'execution',
        iteration: 1,
        index: 2,
        output: 'y'.repeat(50),
        shownToModel: 'yy... [40 characters cut]',
        durationMs: 1,
      },
    ];
    const blocks = findCall(replay(events), 'call-1')!.steps[0]!.blocks;
    expect(blocks.map((block) => block.shownToModel)).toEqual([
      undefined,
      undefined,
      'yy... [40 characters cut]',
    ]);
    expect(blocks[1]).toMatchObject({ output: 'a', error: 'boom' });
  });

  test('records text, code, output, timings, checkpoints, warnings and the answer per step', () => {
    const trace = replay(sampleRunEvents(0), 0);
    const [first, second] = findCall(trace, 'call-1')!.steps;
    expect(first).toMatchObject({
      iteration: 1,
      startedAt: 20,
      respondedAt: 40,
      endedAt: 180,
      text: 'Let me look.\n```repl\n...\n```',
      blocks: [{ index: 0, code: 'const a = 1;', output: 'cats and dogs', durationMs: 100 }],
      checkpoint: { checkpointId: 'cp-1', durationMs: 3 },
    });
    expect(second!.warnings).toEqual([
      { at: 210, code: 'submit-with-code', message: expect.stringContaining('SUBMIT') },
    ]);
    expect(second!.final).toMatchObject({
      source: 'submit-tool',
      answerExcerpt: '{"summary":"cats and dogs"}',
    });
    expect(trace).toMatchObject({ status: 'answered', endedAt: 220 });
  });

  test('splits usage between steps, host calls and calls, and sums it for the run', () => {
    const trace = replay(sampleRunEvents());
    const root = findCall(trace, 'call-1')!;
    expect(root.steps[0]!.usage).toMatchObject({
      inputTokens: 100,
      outputTokens: 20,
      modelCalls: 1,
    });
    expect(root.steps[0]!.hostCalls[0]!.usage).toMatchObject({ inputTokens: 30, modelCalls: 1 });
    expect(root.usage).toMatchObject({ inputTokens: 230, outputTokens: 45, modelCalls: 3 });
    expect(findCall(trace, 'call-2')!.usage).toMatchObject({ inputTokens: 100, modelCalls: 1 });
    expect(trace.usage).toMatchObject({ inputTokens: 330, outputTokens: 65, modelCalls: 4 });
    expect(trace.usage.costUsd).toBeUndefined();
  });

  test('sums the cost of the usage events that carry one', () => {
    const events = sampleRunEvents().map((event) =>
      event.type === 'usage' && event.callId === 'call-2' ? { ...event, costUsd: 0.0125 } : event,
    );
    const trace = replay(events);
    expect(trace.usage.costUsd).toBeCloseTo(0.0125);
    expect(findCall(trace, 'call-2')!.usage.costUsd).toBeCloseTo(0.0125);
    expect(findCall(trace, 'call-1')!.usage.costUsd).toBeUndefined();
  });

  test('leaves the previous document unchanged (pure)', () => {
    const events = sampleRunEvents();
    const before = replay(events.slice(0, 12));
    const snapshot = JSON.stringify(before);
    const after = replay(events);
    for (const event of events.slice(12)) reduceTrace(before, event, 0);
    expect(JSON.stringify(before)).toBe(snapshot);
    expect(after).not.toBe(before);
  });

  test('a failed root call fails the run; events of unknown calls are dropped', () => {
    const events = sampleRunEvents().slice(0, 5);
    const trace = replay([
      ...events,
      { callId: 'nobody', depth: 3, type: 'step-start', iteration: 1 },
      {
        callId: 'call-1',
        depth: 0,
        at: 2_000_000,
        type: 'call-error',
        message: 'budget exhausted',
        errorName: 'BudgetExhaustedError',
      },
    ]);
    expect(trace.calls.map((call) => call.callId)).toEqual(['call-1']);
    expect(trace).toMatchObject({
      status: 'failed',
      endedAt: 2_000_000,
      error: { name: 'BudgetExhaustedError', message: 'budget exhausted' },
    });
  });

  test('resumes and variable-sync failures are kept', () => {
    const trace = replay([
      { callId: 'c', depth: 0, type: 'call-start', query: 'q' },
      { callId: 'c', depth: 0, type: 'resumed', iteration: 4, restored: ['a'], lost: ['fn'] },
      {
        callId: 'c',
        depth: 0,
        type: 'variable-sync-failed',
        reason: 'start',
        message: 'worker busy',
        retries: 2,
        timedOut: true,
      },
    ]);
    expect(findCall(trace, 'c')!.resumed).toEqual({ iteration: 4, restored: ['a'], lost: ['fn'] });
    expect(findCall(trace, 'c')!.warnings[0]).toMatchObject({ code: 'variable-sync-failed' });
  });

  test('a model retry shows as a warning saying what failed and how long it waited', () => {
    const trace = replay([
      { callId: 'c', depth: 0, type: 'call-start', query: 'q' },
      {
        callId: 'c',
        depth: 0,
        type: 'model-retry',
        attempt: 2,
        maxAttempts: 3,
        delayMs: 3_000,
        requestedByApi: true,
        reason: 'rate-limited',
        status: 429,
        detail: 'answered 429 rate_limit_error',
      },
    ]);
    expect(findCall(trace, 'c')!.warnings[0]).toMatchObject({
      code: 'model-retry',
      message: 'the API answered 429 rate_limit_error; retried after 3000 ms (attempt 2 of 3)',
    });
  });
});

describe('finishTrace', () => {
  test('fails a run that never answered, with the error that ended it', () => {
    const running = replay(sampleRunEvents().slice(0, 6));
    const ended = finishTrace(running, { error: { name: 'AbortedError', message: 'aborted' } }, 5);
    expect(ended).toMatchObject({ status: 'failed', endedAt: 5, error: { name: 'AbortedError' } });
    expect(running.status).toBe('running');
  });

  test('keeps an answered run as it is', () => {
    const answered = replay(sampleRunEvents());
    expect(finishTrace(answered, {}, 1)).toBe(answered);
  });
});

describe('a long run', () => {
  test('2,000 root steps with a child every tenth step reduce to one tree', async () => {
    const { syntheticRunEvents } = await import('./testing/synthetic-run-events.js');
    const recorder = createTraceRecorder({ runId: 'run-1', now: () => 0 });
    for (const event of syntheticRunEvents(2000)) recorder.record(event);
    const trace = recorder.trace;
    expect(trace.steps).toBe(2000 + 200 * 2);
    expect(trace.calls).toHaveLength(201);
    const root = findCall(trace, 'root')!;
    expect(root.steps).toHaveLength(2000);
    expect(root.childCallIds).toHaveLength(200);
    expect(root.steps[9]!.hostCalls[1]).toMatchObject({
      name: 'sub_rlm',
      childCallId: 'root.child-1',
    });
    expect(trace.status).toBe('answered');
  });
});
