import { TraceCorruptError } from './errors/trace-corrupt-error.js';
import { findCall } from './reduce-trace.js';
import {
  type TraceCall,
  type TraceDocument,
  type TraceHostCall,
  type TraceModelCall,
  type TraceStep,
  traceSchema,
} from './trace-document.js';

/** Which part of a call a `model-call` line belongs to. */
type ModelCallOwner = 'step' | 'host-call' | 'extract';

/**
 * The trajectory as JSON lines (each line one JSON object, `\n`-terminated), in this order:
 * one `run` line; then, for each call in tree order (a child right after the step that started
 * it), one `call` line followed by its `step` lines, each step followed by the `model-call` line
 * of its model call and by its `host-call` lines, each host call followed by the `model-call`
 * lines of the model calls that served it; after a call's steps, the `model-call` line of its
 * forced final prompt. Every line carries `kind` and `runId`; the fields are documented in the
 * package README ("JSON lines"). Deterministic: the same trace gives the same text, and
 * {@link traceFromJsonLines} reads it back.
 */
export function traceToJsonLines(trace: TraceDocument): string {
  const lines: string[] = [];
  const { calls: _calls, ...run } = trace;
  lines.push(JSON.stringify({ kind: 'run', ...run }));
  const modelCallLine = (
    call: TraceCall,
    iteration: number,
    of: ModelCallOwner,
    modelCall: TraceModelCall,
    requestId?: string,
  ) =>
    lines.push(
      JSON.stringify({
        kind: 'model-call',
        runId: trace.runId,
        callId: call.callId,
        iteration,
        of,
        ...(requestId === undefined ? {} : { requestId }),
        ...modelCall,
      }),
    );
  const visited = new Set<string>();
  const visit = (call: TraceCall) => {
    if (visited.has(call.callId)) return;
    visited.add(call.callId);
    const { steps, extract, ...rest } = call;
    lines.push(JSON.stringify({ kind: 'call', runId: trace.runId, ...rest }));
    for (const step of steps) {
      const { hostCalls, modelCall, ...stepRest } = step;
      lines.push(
        JSON.stringify({
          kind: 'step',
          runId: trace.runId,
          callId: call.callId,
          depth: call.depth,
          ...stepRest,
        }),
      );
      if (modelCall) modelCallLine(call, step.iteration, 'step', modelCall);
      for (const hostCall of hostCalls) {
        const { modelCalls, ...hostRest } = hostCall;
        lines.push(
          JSON.stringify({
            kind: 'host-call',
            runId: trace.runId,
            callId: call.callId,
            iteration: step.iteration,
            ...hostRest,
          }),
        );
        for (const served of modelCalls ?? []) {
          modelCallLine(call, step.iteration, 'host-call', served, hostCall.requestId);
        }
      }
      for (const hostCall of hostCalls) {
        const child = hostCall.childCallId ? findCall(trace, hostCall.childCallId) : undefined;
        if (child) visit(child);
      }
    }
    if (extract) modelCallLine(call, steps.at(-1)?.iteration ?? 0, 'extract', extract);
    for (const childId of call.childCallIds) {
      const child = findCall(trace, childId);
      if (child) visit(child);
    }
  };
  const root = trace.rootCallId ? findCall(trace, trace.rootCallId) : undefined;
  if (root) visit(root);
  for (const call of trace.calls) visit(call);
  return lines.map((line) => `${line}\n`).join('');
}

/** A call being rebuilt: its steps, each with its host calls, as mutable lists. */
interface CallParts {
  call: Omit<TraceCall, 'steps' | 'extract'>;
  steps: { step: TraceStep; hostCalls: TraceHostCall[] }[];
  extract?: TraceModelCall;
}

/**
 * Reads back what {@link traceToJsonLines} wrote: the trace document. Blank lines are ignored.
 * Calls come back in start order (the root first).
 *
 * @throws {TraceCorruptError} naming the line when a line is not JSON, has an unknown `kind`,
 *   or belongs to a call, step or host call no earlier line started; or when there is no `run`
 *   line of this schema first.
 */
export function traceFromJsonLines(text: string): TraceDocument {
  let run: Omit<TraceDocument, 'calls'> | undefined;
  const calls = new Map<string, CallParts>();
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const fail = (problem: string, cause?: unknown) =>
      new TraceCorruptError(
        `@rlm/trace: line ${index + 1} of the JSON lines ${problem}; write them with rlm trace --jsonl (or traceToJsonLines)`,
        { runId: run?.runId ?? '', ...(cause === undefined ? {} : { cause }) },
      );
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch (error) {
      throw fail('is not JSON', error);
    }
    if (record === null || typeof record !== 'object') throw fail('is not a JSON object');
    const { kind, ...fields } = record;
    if (run === undefined) {
      if (kind !== 'run' || fields.schema !== traceSchema) {
        throw fail(`is not the run line of a ${traceSchema} trace`);
      }
      run = fields as unknown as Omit<TraceDocument, 'calls'>;
      continue;
    }
    const parts = calls.get(String(fields.callId));
    switch (kind) {
      case 'call': {
        const { runId: _runId, ...call } = fields;
        calls.set(String(call.callId), { call: call as unknown as CallParts['call'], steps: [] });
        continue;
      }
      case 'step': {
        if (parts === undefined) throw fail('is a step of a call no earlier line started');
        const { runId: _runId, callId: _callId, depth: _depth, ...step } = fields;
        parts.steps.push({
          step: { ...(step as unknown as TraceStep), hostCalls: [] },
          hostCalls: [],
        });
        continue;
      }
      case 'host-call': {
        const step = parts?.steps.at(-1);
        if (step === undefined) throw fail('is a host call of a step no earlier line started');
        const { runId: _runId, callId: _callId, iteration: _iteration, ...hostCall } = fields;
        step.hostCalls.push(hostCall as unknown as TraceHostCall);
        continue;
      }
      case 'model-call': {
        if (parts === undefined) throw fail('is a model call of a call no earlier line started');
        const {
          runId: _runId,
          callId: _callId,
          iteration: _iteration,
          of,
          requestId,
          ...rest
        } = fields;
        const modelCall = rest as unknown as TraceModelCall;
        if (of === 'extract') {
          parts.extract = modelCall;
          continue;
        }
        const step = parts.steps.at(-1);
        if (step === undefined) throw fail('is a model call of a step no earlier line started');
        if (of === 'step') {
          step.step = { ...step.step, modelCall };
          continue;
        }
        const position = step.hostCalls.findLastIndex(
          (hostCall) => hostCall.requestId === requestId,
        );
        if (of !== 'host-call' || position < 0) {
          throw fail('is a model call of a host call no earlier line started');
        }
        const hostCall = step.hostCalls[position]!;
        step.hostCalls[position] = {
          ...hostCall,
          modelCalls: [...(hostCall.modelCalls ?? []), modelCall],
        };
        continue;
      }
      default:
        throw fail(`has an unknown kind ${JSON.stringify(kind)}`);
    }
  }
  if (run === undefined) {
    throw new TraceCorruptError('@rlm/trace: the JSON lines hold no run line', { runId: '' });
  }
  const rebuilt = [...calls.values()].map(
    (parts): TraceCall => ({
      ...parts.call,
      steps: parts.steps.map(({ step, hostCalls }) => ({ ...step, hostCalls })),
      ...(parts.extract ? { extract: parts.extract } : {}),
    }),
  );
  // The document keeps the root first, then the calls in start order.
  rebuilt.sort(
    (a, b) =>
      Number(b.callId === run!.rootCallId) - Number(a.callId === run!.rootCallId) ||
      a.startedAt - b.startedAt,
  );
  return { ...run, calls: rebuilt };
}
