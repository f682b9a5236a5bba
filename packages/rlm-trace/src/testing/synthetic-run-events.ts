import type { RlmEvent } from '@rlm/core';

/**
 * The events of a long made-up run, for viewer performance tests and benchmarks: one root
 * call with `steps` steps, each with model text, one code block, its output and one
 * `llm_query` with its usage; every tenth step also starts a `sub_rlm` child with two steps.
 * Times start at `start` and advance a few milliseconds per event. Deterministic.
 */
export function syntheticRunEvents(steps: number, start = 1_700_000_000_000): RlmEvent[] {
  const events: RlmEvent[] = [];
  let at = start;
  let request = 0;
  let child = 0;
  const usage = { inputTokens: 1200, outputTokens: 150 };
  const push = (event: RlmEvent) => {
    at += 3;
    events.push({ ...event, at } as RlmEvent);
  };
  const runStep = (callId: string, depth: number, iteration: number) => {
    const base = { callId, depth };
    push({ ...base, type: 'step-start', iteration });
    push({ ...base, type: 'usage', usage, modelId: 'scripted', modelCalls: 0 });
    const code = `const part = context.slice(${iteration * 1000}, ${iteration * 1000 + 1000});\nconst answer = await llm_query(\`Summarise: \${part}\`);\nprint(answer.slice(0, 80));`;
    push({
      ...base,
      type: 'text',
      iteration,
      text: `Step ${iteration}: I will summarise the next slice.\n\`\`\`repl\n${code}\n\`\`\``,
    });
    push({ ...base, type: 'code', iteration, index: 0, code });
    request += 1;
    const requestId = `bridge-${request}`;
    push({
      ...base,
      type: 'bridge-call',
      requestId,
      name: 'llm_query',
      argumentsExcerpt: `Summarise: slice ${iteration} of the report`,
    });
    push({ ...base, type: 'usage', usage, modelId: 'scripted', modelCalls: 0, requestId });
    push({
      ...base,
      type: 'bridge-result',
      requestId,
      name: 'llm_query',
      ok: true,
      durationMs: 3,
      resultExcerpt: `Slice ${iteration} reports quarterly figures for region ${iteration % 17}.`,
    });
    if (depth === 0 && iteration % 10 === 0) {
      child += 1;
      request += 1;
      const childId = `${callId}.child-${child}`;
      const childRequest = `bridge-${request}`;
      push({
        ...base,
        type: 'bridge-call',
        requestId: childRequest,
        name: 'sub_rlm',
        argumentsExcerpt: `["Check slice ${iteration}"]`,
      });
      push({
        callId: childId,
        depth: 1,
        type: 'call-start',
        query: `Check slice ${iteration}`,
        parentCallId: callId,
      });
      runStep(childId, 1, 1);
      runStep(childId, 1, 2);
      push({
        callId: childId,
        depth: 1,
        type: 'final',
        answer: `slice ${iteration} is consistent`,
        iterations: 2,
        usage: { ...usage, cacheReadTokens: 0, cacheWriteTokens: 0, modelCalls: 0 },
        depthReached: 1,
        durationMs: 10,
        source: 'final-text',
      });
      push({
        ...base,
        type: 'bridge-result',
        requestId: childRequest,
        name: 'sub_rlm',
        ok: true,
        durationMs: 30,
        resultExcerpt: `slice ${iteration} is consistent`,
      });
    }
    push({
      ...base,
      type: 'execution',
      iteration,
      index: 0,
      output: `Slice ${iteration} reports quarterly figures for region ${iteration % 17}.`,
      shownToModel: `Slice ${iteration} reports quarterly figures for region ${iteration % 17}.`,
      durationMs: 12,
    });
    push({ ...base, type: 'step-complete', iteration, durationMs: 30 });
  };
  push({ callId: 'root', depth: 0, type: 'call-start', query: `Summarise a ${steps}-step report` });
  for (let iteration = 1; iteration <= steps; iteration++) runStep('root', 0, iteration);
  push({
    callId: 'root',
    depth: 0,
    type: 'final',
    answer: 'All slices summarised.',
    iterations: steps,
    usage: { ...usage, cacheReadTokens: 0, cacheWriteTokens: 0, modelCalls: 0 },
    depthReached: 1,
    durationMs: at - start,
    source: 'final-text',
  });
  return events;
}
