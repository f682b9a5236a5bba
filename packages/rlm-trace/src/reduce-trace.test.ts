import type { Message, RlmEvent } from '@rlm/core';
import { describe, expect, test } from 'vitest';
import { createTraceRecorder } from './create-trace-recorder.js';
import { expandModelCalls } from './expand-model-calls.js';
import { createTrace, findCall, finishTrace, reduceTrace } from './reduce-trace.js';
import { sampleRunEvents } from './testing/sample-run-events.js';
import type { TraceDocument } from './trace-document.js';

function replay(
  events: readonly RlmEvent[],
  from: number | TraceDocument = 1_000_000,
): TraceDocument {
  return events.reduce(
    (trace, event) => reduceTrace(trace, event, 0),
    typeof from === 'number' ? createTrace({ runId: 'run-1', startedAt: from }) : from,
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

describe('model calls', () => {
  const base = { callId: 'c', depth: 0, at: 5 } as const;
  const response = {
    text: 'ok',
    toolCalls: [],
    stopReason: 'end' as const,
    usage: { inputTokens: 1, outputTokens: 1 },
  };
  const modelCall = (iteration: number, messages: Message[], extra: object = {}): RlmEvent => ({
    ...base,
    type: 'model-call',
    iteration,
    modelId: 'm',
    durationMs: 7,
    request: { system: 'sys', messages },
    response,
    ...extra,
  });
  const user = (content: string): Message => ({ role: 'user', content });
  const assistant = (content: string): Message => ({ role: 'assistant', content });
  const retry = (delayMs: number, requestId?: string): RlmEvent => ({
    ...base,
    type: 'model-retry',
    attempt: 2,
    maxAttempts: 3,
    delayMs,
    requestedByApi: false,
    reason: 'server',
    detail: 'answered 500',
    ...(requestId ? { requestId } : {}),
  });

  test("a step keeps its request as a difference from the call's previous one", () => {
    const first = [user('query')];
    const second = [user('query'), assistant('a1'), user('out1')];
    // History compaction rewrote the first message: nothing is kept then.
    const third = [user('query + summary'), assistant('a2'), user('out2')];
    const trace = replay([
      { ...base, type: 'call-start', query: 'q' },
      { ...base, type: 'step-start', iteration: 1 },
      modelCall(1, first),
      { ...base, type: 'step-complete', iteration: 1, durationMs: 1 },
      { ...base, type: 'step-start', iteration: 2 },
      modelCall(2, second),
      { ...base, type: 'step-complete', iteration: 2, durationMs: 1 },
      { ...base, type: 'step-start', iteration: 3 },
      modelCall(3, structuredClone(third)),
      { ...base, type: 'step-complete', iteration: 3, durationMs: 1 },
      // The forced final prompt belongs to no step.
      modelCall(3, [...third, assistant('a3'), user('answer now')], {
        request: { system: 'sys2', messages: [...third, assistant('a3'), user('answer now')] },
      }),
    ]);
    const call = findCall(trace, 'c')!;
    const [one, two, three] = call.steps.map((step) => step.modelCall!);
    expect(one).toEqual({
      at: 5,
      durationMs: 7,
      modelId: 'm',
      system: 'sys',
      messages: first,
      response,
    });
    expect(two).toMatchObject({ keptMessages: 1, messages: second.slice(1) });
    expect(two!.system).toBeUndefined();
    expect(three!.keptMessages).toBeUndefined();
    expect(three!.messages).toEqual(third);
    expect(call.extract).toMatchObject({
      system: 'sys2',
      keptMessages: 3,
      messages: [assistant('a3'), user('answer now')],
    });
    const expanded = expandModelCalls(call);
    expect(expanded.steps.map((request) => request?.messages)).toEqual([first, second, third]);
    expect(expanded.extract).toEqual({
      system: 'sys2',
      messages: [...third, assistant('a3'), user('answer now')],
    });
    // A document read back from JSON (no cache) gives the same differences.
    const reloaded = replay(
      [
        { ...base, type: 'step-start', iteration: 4 },
        modelCall(4, [...third, assistant('a3'), user('x')]),
      ],
      JSON.parse(JSON.stringify(trace)),
    );
    expect(findCall(reloaded, 'c')!.steps[3]!.modelCall).toMatchObject({ keptMessages: 3 });
  });

  test('a host call keeps every model call that served it whole; retries count on the step or the host call', () => {
    const trace = replay([
      { ...base, type: 'call-start', query: 'q' },
      { ...base, type: 'step-start', iteration: 1 },
      retry(1_000),
      retry(600),
      modelCall(1, [user('query')]),
      { ...base, type: 'bridge-call', requestId: 'r1', name: 'llm_query_batched' },
      retry(250, 'r1'),
      modelCall(1, [user('prompt a')], { requestId: 'r1' }),
      modelCall(1, [user('prompt b')], { requestId: 'r1' }),
    ]);
    const step = findCall(trace, 'c')!.steps[0]!;
    expect(step.retries).toEqual({ count: 2, waitMs: 1_600, lastAttemptAt: 5 + 600 });
    expect(step.hostCalls[0]!.retries).toEqual({ count: 1, waitMs: 250, lastAttemptAt: 5 + 250 });
    expect(step.hostCalls[0]!.modelCalls!.map((call) => [call.system, call.messages])).toEqual([
      ['sys', [user('prompt a')]],
      ['sys', [user('prompt b')]],
    ]);
    expect(step.warnings.map((warning) => warning.code)).toEqual(Array(3).fill('model-retry'));
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
