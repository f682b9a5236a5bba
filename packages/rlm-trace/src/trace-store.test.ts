import { createMemoryArtifactStore } from '@rlm/artifacts';
import { describe, expect, test } from 'vitest';
import { TraceCorruptError } from './errors/trace-corrupt-error.js';
import { TraceNotFoundError } from './errors/trace-not-found-error.js';
import { createTrace, reduceTrace } from './reduce-trace.js';
import { sampleRunEvents } from './testing/sample-run-events.js';
import type { TraceDocument } from './trace-document.js';
import { listRuns, loadTrace, saveTrace, traceScope } from './trace-store.js';

function sampleTrace(runId: string, query = 'Summarise the notes'): TraceDocument {
  return sampleRunEvents()
    .map((event) =>
      event.type === 'call-start' && event.depth === 0 ? { ...event, query } : event,
    )
    .reduce((trace, event) => reduceTrace(trace, event, 0), createTrace({ runId, startedAt: 1 }));
}

describe('the trace store', () => {
  test('saves traces and lists the runs newest first with their totals', async () => {
    await using store = await createMemoryArtifactStore();
    await saveTrace(store, sampleTrace('run-a', 'first'));
    await saveTrace(store, sampleTrace('run-b', 'second'));
    const runs = await listRuns(store);
    expect(runs.map((run) => run.runId)).toEqual(['run-b', 'run-a']);
    expect(runs[0]).toMatchObject({
      query: 'second',
      status: 'answered',
      steps: 3,
      calls: 2,
      depthReached: 1,
      usage: { inputTokens: 330, modelCalls: 4 },
    });
    expect(runs[0]!.durationMs).toBeGreaterThan(0);
    expect(await listRuns(store, { limit: 1 })).toHaveLength(1);
  });

  test('loads a run by id or the latest, as saved', async () => {
    await using store = await createMemoryArtifactStore();
    const first = sampleTrace('run-a');
    await saveTrace(store, first);
    await saveTrace(store, sampleTrace('run-b'));
    expect(await loadTrace(store, 'run-a')).toEqual(JSON.parse(JSON.stringify(first)));
    expect((await loadTrace(store)).runId).toBe('run-b');
  });

  test('saving the same trace twice is idempotent and keeps other scopes apart', async () => {
    await using store = await createMemoryArtifactStore();
    const trace = sampleTrace('run-a');
    await saveTrace(store, trace);
    await saveTrace(store, trace);
    expect(await listRuns(store)).toHaveLength(1);
    expect(await store.names()).toEqual([]);
  });

  test('an unknown run, an empty store and a foreign record are typed errors', async () => {
    await using store = await createMemoryArtifactStore();
    await expect(loadTrace(store)).rejects.toSatisfy(TraceNotFoundError.isInstance);
    await expect(loadTrace(store, 'nope')).rejects.toThrow(/rlm runs lists/);
    await store.scoped(traceScope).put('odd', {
      type: 'rlm-trace',
      value: { runId: 'odd', traceId: 'ffffffffffff' },
      description: 'not a real trace',
    });
    await expect(loadTrace(store, 'odd')).rejects.toThrow();
    const blob = await store.store('{"schema":"other"}');
    await store.scoped(traceScope).put('wrong-schema', {
      type: 'rlm-trace',
      value: { runId: 'wrong-schema', traceId: blob.id },
      description: 'another schema',
    });
    await expect(loadTrace(store, 'wrong-schema')).rejects.toSatisfy(TraceCorruptError.isInstance);
  });
});
