import type { TraceDocument, TraceStatus, TraceUsage } from './trace-document.js';

/** One line of `rlm runs`: a run without its call tree. */
export interface RunSummary {
  readonly runId: string;
  readonly query: string;
  readonly status: TraceStatus;
  /** Milliseconds since the epoch. */
  readonly startedAt: number;
  /** Milliseconds; `undefined` when the run's end was never seen. */
  readonly durationMs?: number;
  /** Steps over every call. */
  readonly steps: number;
  /** Calls, the root included. */
  readonly calls: number;
  readonly depthReached: number;
  readonly usage: TraceUsage;
  /** The error message of a failed run. */
  readonly error?: string;
}

/** The summary of `trace`. */
export function summarizeRun(trace: TraceDocument): RunSummary {
  return {
    runId: trace.runId,
    query: trace.query,
    status: trace.status,
    startedAt: trace.startedAt,
    ...(trace.endedAt === undefined ? {} : { durationMs: trace.endedAt - trace.startedAt }),
    steps: trace.steps,
    calls: trace.calls.length,
    depthReached: trace.depthReached,
    usage: trace.usage,
    ...(trace.error ? { error: trace.error.message } : {}),
  };
}
