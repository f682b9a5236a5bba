import { describe, expect, test } from 'vitest';
import { TraceCorruptError } from './errors/trace-corrupt-error.js';
import { createTrace, reduceTrace } from './reduce-trace.js';
import { sampleRunEvents } from './testing/sample-run-events.js';
import { syntheticRunEvents } from './testing/synthetic-run-events.js';
import { traceFromJsonLines, traceToJsonLines } from './trace-json-lines.js';

const sampleTrace = () =>
  sampleRunEvents().reduce(
    (current, event) => reduceTrace(current, event, 0),
    createTrace({ runId: 'run-1', startedAt: 0 }),
  );

describe('traceToJsonLines', () => {
  test('writes run, calls in tree order, steps, model calls and host calls, one JSON object a line', () => {
    const text = traceToJsonLines(sampleTrace());
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(
      lines.map((line) => [
        line.kind,
        line.callId ?? null,
        line.iteration ?? null,
        line.of ?? null,
      ]),
    ).toEqual([
      ['run', null, null, null],
      ['call', 'call-1', null, null],
      ['step', 'call-1', 1, null],
      ['model-call', 'call-1', 1, 'step'],
      ['host-call', 'call-1', 1, null],
      ['model-call', 'call-1', 1, 'host-call'],
      ['host-call', 'call-1', 1, null],
      ['call', 'call-2', null, null],
      ['step', 'call-2', 1, null],
      ['model-call', 'call-2', 1, 'step'],
      ['step', 'call-1', 2, null],
      ['model-call', 'call-1', 2, 'step'],
    ]);
    expect(lines.every((line) => line.runId === 'run-1')).toBe(true);
    expect(lines[0]).toMatchObject({ schema: 'rlm-trace/1', status: 'answered', steps: 3 });
    expect(lines[0].calls).toBeUndefined();
    expect(lines[2].modelCall).toBeUndefined();
    expect(lines[4]).toMatchObject({ name: 'llm_query', resultExcerpt: 'Part 1 is about cats.' });
    expect(lines[4].modelCalls).toBeUndefined();
    // A host call's model call is whole: the full prompt and the full answer.
    expect(lines[5]).toMatchObject({
      requestId: 'bridge-1',
      system: 'Answer the request.',
      messages: [{ role: 'user', content: 'What is in part 1?' }],
      response: { text: 'Part 1 is about cats.' },
    });
    expect(lines[8]).toMatchObject({ depth: 1, text: 'FINAL(Part 2 is about dogs.)' });
    // The root's second step request keeps the first one's message and adds two.
    expect(lines[11]).toMatchObject({
      keptMessages: 1,
      messages: [{ role: 'assistant' }, { role: 'user' }],
    });
    expect(lines[11].system).toBeUndefined();
  });

  test('traceFromJsonLines reads back the same trace', () => {
    const trace = sampleTrace();
    expect(traceFromJsonLines(traceToJsonLines(trace))).toEqual(trace);
    const long = syntheticRunEvents(40).reduce(
      (current, event) => reduceTrace(current, event, 0),
      createTrace({ runId: 'run-2', startedAt: 0 }),
    );
    expect(traceFromJsonLines(traceToJsonLines(long))).toEqual(long);
  });

  test('traceFromJsonLines names the line it cannot read', () => {
    const lines = traceToJsonLines(sampleTrace()).split('\n');
    const read = (text: string) => {
      try {
        traceFromJsonLines(text);
        return 'read';
      } catch (error) {
        expect(TraceCorruptError.isInstance(error)).toBe(true);
        return (error as Error).message;
      }
    };
    expect(read('')).toBe('@rlm/trace: the JSON lines hold no run line');
    expect(read([lines[0], '{oops'].join('\n'))).toMatch(
      /^@rlm\/trace: line 2 of the JSON lines is not JSON;/,
    );
    expect(read(lines.slice(1).join('\n'))).toMatch(
      /line 1 of the JSON lines is not the run line of a rlm-trace\/1 trace/,
    );
    expect(read([lines[0], lines[2]].join('\n'))).toMatch(
      /line 2 .* is a step of a call no earlier line started/,
    );
    expect(read([lines[0], '{"kind":"nope"}'].join('\n'))).toMatch(
      /line 2 .* has an unknown kind "nope"/,
    );
  });
});
