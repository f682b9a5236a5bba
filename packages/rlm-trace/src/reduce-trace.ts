import type { RlmEvent } from '@rlm/core';
import { TraceBuilder } from './trace-builder.js';
import type { TraceCall, TraceDocument } from './trace-document.js';

export { answerExcerptChars } from './trace-builder.js';

/** The trace of a run that has not started yet. */
export function createTrace(options: {
  /** See {@link TraceDocument.runId}. */
  readonly runId: string;
  /** Milliseconds since the epoch. */
  readonly startedAt: number;
  readonly metadata?: Readonly<Record<string, unknown>>;
}): TraceDocument {
  return new TraceBuilder(options).toDocument();
}

/**
 * The trace after `event`. Pure: returns a new document and leaves `trace` as it was.
 * `receivedAt` (milliseconds since the epoch) stands in for the event's own `at` when it has
 * none. Events of unknown calls start no call and are dropped, except `call-start`; events
 * arrive in the order `queryStream` yields them. Each call copies the trace (O(its size)): to
 * follow a whole run, use `createTraceRecorder`, which adds each event in O(1) amortised.
 */
export function reduceTrace(
  trace: TraceDocument,
  event: RlmEvent,
  receivedAt: number,
): TraceDocument {
  const builder = TraceBuilder.from(trace);
  builder.record(event, receivedAt);
  return builder.toDocument();
}

/**
 * Marks a run as ended: the time, and for a run still `running` (its stream threw before the
 * root's own `final` or `call-error`, e.g. an abort) `failed` with `error`. Calls still running
 * stay `running`: their end was never seen. Pure, like {@link reduceTrace}; returns `trace`
 * itself when it already ended.
 */
export function finishTrace(
  trace: TraceDocument,
  outcome: { readonly error?: { readonly name: string; readonly message: string } },
  at: number,
): TraceDocument {
  if (trace.status !== 'running' && trace.endedAt !== undefined) return trace;
  const builder = TraceBuilder.from(trace);
  builder.finish(outcome, at);
  return builder.toDocument();
}

/**
 * The call `callId` of `trace`, or `undefined`. Searches the newest calls first, so looking up
 * a recent call is fast.
 */
export function findCall(trace: TraceDocument, callId: string): TraceCall | undefined {
  return trace.calls.findLast((call) => call.callId === callId);
}
