import { describe, expect, test } from 'vitest';
import { createTrace, reduceTrace } from './reduce-trace.js';
import { sampleRunEvents } from './testing/sample-run-events.js';
import { traceToJsonLines } from './trace-json-lines.js';

describe('traceToJsonLines', () => {
  test('writes run, calls in tree order, steps and host calls, one JSON object a line', () => {
    const trace = sampleRunEvents().reduce(
      (current, event) => reduceTrace(current, event, 0),
      createTrace({ runId: 'run-1', startedAt: 0 }),
    );
    const text = traceToJsonLines(trace);
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.kind, line.callId ?? null, line.iteration ?? null])).toEqual([
      ['run', null, null],
      ['call', 'call-1', null],
      ['step', 'call-1', 1],
      ['host-call', 'call-1', 1],
      ['host-call', 'call-1', 1],
      ['call', 'call-2', null],
      ['step', 'call-2', 1],
      ['step', 'call-1', 2],
    ]);
    expect(lines.every((line) => line.runId === 'run-1')).toBe(true);
    expect(lines[0]).toMatchObject({ schema: 'rlm-trace/1', status: 'answered', steps: 3 });
    expect(lines[0].calls).toBeUndefined();
    expect(lines[3]).toMatchObject({ name: 'llm_query', resultExcerpt: 'Part 1 is about cats.' });
    expect(lines[6]).toMatchObject({ depth: 1, text: 'FINAL(Part 2 is about dogs.)' });
  });
});
