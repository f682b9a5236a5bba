import type { RlmEvent } from '@rlm/core';
import { createRunId } from './create-run-id.js';
import { createTrace, finishTrace, reduceTrace } from './reduce-trace.js';
import type { TraceDocument } from './trace-document.js';

/** Settings of {@link createTraceRecorder}. */
export interface TraceRecorderSettings {
  /** Default: a new {@link createRunId}. */
  readonly runId?: string;
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** Facts kept in the trace's `metadata` (model ids, ...). */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** Builds a run's trace from its events as they arrive. */
export interface TraceRecorder {
  readonly runId: string;
  /** The trace so far; a new object after every recorded event. */
  readonly trace: TraceDocument;
  /** Adds one `queryStream` event. Never throws. */
  record(event: RlmEvent): void;
  /**
   * Marks the run as ended (failed with `error` when the root never answered or failed) and
   * returns the trace. Idempotent.
   */
  finish(error?: unknown): TraceDocument;
}

/** A recorder over {@link reduceTrace}: pass every event of one run to `record`. */
export function createTraceRecorder(settings: TraceRecorderSettings = {}): TraceRecorder {
  const now = settings.now ?? Date.now;
  const runId = settings.runId ?? createRunId(now());
  let trace = createTrace({
    runId,
    startedAt: now(),
    ...(settings.metadata ? { metadata: settings.metadata } : {}),
  });
  return {
    runId,
    get trace() {
      return trace;
    },
    record(event) {
      try {
        trace = reduceTrace(trace, event, now());
      } catch {
        // A trace is telemetry: a malformed event never breaks the run.
      }
    },
    finish(error) {
      trace = finishTrace(trace, error === undefined ? {} : { error: describeError(error) }, now());
      return trace;
    },
  };
}

function describeError(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}
