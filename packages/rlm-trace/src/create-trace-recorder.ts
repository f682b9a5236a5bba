import type { RlmEvent } from '@rlm/core';
import { createRunId } from './create-run-id.js';
import { TraceBuilder } from './trace-builder.js';
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
  /**
   * The trace so far, as a document that later events leave as it is. Built when read
   * (O(size of the trace), then kept until the next event): read it when needed, not after
   * every event.
   */
  readonly trace: TraceDocument;
  /** Adds one `queryStream` event in O(1) amortised, however long the run. Never throws. */
  record(event: RlmEvent): void;
  /**
   * Marks the run as ended (failed with `error` when the root never answered or failed) and
   * returns the trace. Idempotent.
   */
  finish(error?: unknown): TraceDocument;
}

/**
 * A recorder that builds the trace as `reduceTrace` would, in place: pass every event of one
 * run to `record`.
 */
export function createTraceRecorder(settings: TraceRecorderSettings = {}): TraceRecorder {
  const now = settings.now ?? Date.now;
  const runId = settings.runId ?? createRunId(now());
  const builder = new TraceBuilder({
    runId,
    startedAt: now(),
    ...(settings.metadata ? { metadata: settings.metadata } : {}),
  });
  let latest: TraceDocument | undefined;
  const trace = () => {
    latest ??= builder.toDocument();
    return latest;
  };
  return {
    runId,
    get trace() {
      return trace();
    },
    record(event) {
      latest = undefined;
      try {
        builder.record(event, now());
      } catch {
        // A trace is telemetry: a malformed event never breaks the run.
      }
    },
    finish(error) {
      latest = undefined;
      builder.finish(error === undefined ? {} : { error: describeError(error) }, now());
      return trace();
    },
  };
}

function describeError(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}
