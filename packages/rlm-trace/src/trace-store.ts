import type { ArtifactStore } from '@rlm/core';
import { TraceCorruptError } from './errors/trace-corrupt-error.js';
import { TraceNotFoundError } from './errors/trace-not-found-error.js';
import { type RunSummary, summarizeRun } from './run-summary.js';
import { type TraceDocument, traceSchema } from './trace-document.js';

/** The artifact-store scope whose named records index the stored traces (one per run). */
export const traceScope = 'rlm:traces';

/** The record type of a stored trace. */
const recordType = 'rlm-trace';

/**
 * Stores a finished run's trace: the document as a content-addressed blob, and a named record
 * `runId` in the {@link traceScope} scope whose value is the run's summary and the blob's id.
 * Idempotent for the same trace; rejects with `ArtifactConflictError` when the run id already
 * holds a different trace, and like the store's `store` and `put` otherwise.
 */
export async function saveTrace(store: ArtifactStore, trace: TraceDocument): Promise<RunSummary> {
  const blob = await store.store(JSON.stringify(trace));
  const summary = summarizeRun(trace);
  await store.scoped(traceScope).put(trace.runId, {
    type: recordType,
    value: { ...summary, traceId: blob.id },
    description: `trace of run ${trace.runId}: ${trace.query.slice(0, 200)}`,
    timestamp: trace.startedAt,
  });
  return summary;
}

/**
 * The stored runs, newest first, at most `limit` (default 20). Records that are not traces
 * are skipped.
 */
export async function listRuns(
  store: ArtifactStore,
  options: { readonly limit?: number } = {},
): Promise<RunSummary[]> {
  const scoped = store.scoped(traceScope);
  const names = (await scoped.names()).reverse().slice(0, options.limit ?? 20);
  const runs: RunSummary[] = [];
  for (const name of names) {
    const record = await scoped.get(name);
    if (record?.type !== recordType || !isIndexValue(record.value)) continue;
    const { traceId: _traceId, ...summary } = record.value;
    runs.push(summary);
  }
  return runs;
}

/**
 * The stored trace of `runId`, or of the newest run when `runId` is `undefined`. Rejects with
 * `TraceNotFoundError` when there is none, and with `TraceCorruptError` when it does not
 * decode.
 */
export async function loadTrace(store: ArtifactStore, runId?: string): Promise<TraceDocument> {
  const scoped = store.scoped(traceScope);
  const name = runId ?? (await scoped.names()).at(-1);
  if (name === undefined) {
    throw new TraceNotFoundError('@rlm/trace: no run is stored yet; run a query first', {
      runId,
    });
  }
  const record = await scoped.get(name);
  if (record === undefined || record.type !== recordType) {
    throw new TraceNotFoundError(
      `@rlm/trace: no run ${JSON.stringify(name)} is stored; rlm runs lists the stored ones`,
      { runId },
    );
  }
  if (!isIndexValue(record.value)) {
    throw new TraceCorruptError(`@rlm/trace: the index record of run ${name} is malformed`, {
      runId: name,
    });
  }
  const text = await store.load(record.value.traceId);
  let trace: unknown;
  try {
    trace = JSON.parse(text);
  } catch (error) {
    throw new TraceCorruptError(`@rlm/trace: the trace of run ${name} cannot be read`, {
      runId: name,
      cause: error,
    });
  }
  if ((trace as TraceDocument | null)?.schema !== traceSchema) {
    throw new TraceCorruptError(
      `@rlm/trace: the trace of run ${name} is not a ${traceSchema} document`,
      { runId: name },
    );
  }
  return trace as TraceDocument;
}

function isIndexValue(value: unknown): value is RunSummary & { readonly traceId: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { traceId?: unknown }).traceId === 'string' &&
    typeof (value as { runId?: unknown }).runId === 'string'
  );
}
