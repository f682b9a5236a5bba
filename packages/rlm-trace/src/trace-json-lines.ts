import { findCall } from './reduce-trace.js';
import type { TraceCall, TraceDocument } from './trace-document.js';

/**
 * The trajectory as JSON lines (each line one JSON object, `\n`-terminated), in this order:
 * one `run` line; then, for each call in tree order (a child right after the step that started
 * it), one `call` line followed by its `step` lines, each step followed by its `host-call`
 * lines. Every line carries `kind` and `runId`; the fields are documented in the package
 * README ("JSON lines"). Deterministic: the same trace gives the same text.
 */
export function traceToJsonLines(trace: TraceDocument): string {
  const lines: string[] = [];
  const { calls: _calls, ...run } = trace;
  lines.push(JSON.stringify({ kind: 'run', ...run }));
  const visited = new Set<string>();
  const visit = (call: TraceCall) => {
    if (visited.has(call.callId)) return;
    visited.add(call.callId);
    const { steps, ...rest } = call;
    lines.push(JSON.stringify({ kind: 'call', runId: trace.runId, ...rest }));
    for (const step of steps) {
      const { hostCalls, ...stepRest } = step;
      lines.push(
        JSON.stringify({
          kind: 'step',
          runId: trace.runId,
          callId: call.callId,
          depth: call.depth,
          ...stepRest,
        }),
      );
      for (const hostCall of hostCalls) {
        lines.push(
          JSON.stringify({
            kind: 'host-call',
            runId: trace.runId,
            callId: call.callId,
            iteration: step.iteration,
            ...hostCall,
          }),
        );
      }
      for (const hostCall of hostCalls) {
        const child = hostCall.childCallId ? findCall(trace, hostCall.childCallId) : undefined;
        if (child) visit(child);
      }
    }
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
