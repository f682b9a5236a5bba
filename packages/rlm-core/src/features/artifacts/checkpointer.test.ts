import { expect, test } from 'vitest';
import type { ArtifactStore, CheckpointInput, CheckpointSummary } from '../../artifact-store.js';
import { Checkpointer, type CheckpointerEvents } from './checkpointer.js';
import { SnapshotPreemptedError } from '../../errors/index.js';
import type { RunningCall } from '../feature.js';
import type { Sandbox, VariableSnapshotEntry } from '../../sandbox.js';

/** A snapshot the test settles by hand. */
interface PendingSnapshot {
  resolve(entries: VariableSnapshotEntry[]): void;
  reject(error: Error): void;
}

/** A call whose sandbox's snapshots wait for the test, and a store that records saves. */
function harness(maxLagMs?: number) {
  const snapshots: PendingSnapshot[] = [];
  const sandbox = {
    snapshotVariables: () =>
      new Promise<VariableSnapshotEntry[]>((resolve, reject) =>
        snapshots.push({ resolve, reject }),
      ),
  } as unknown as Sandbox;
  const call = {
    id: 'root',
    depth: 0,
    iteration: 0,
    messages: [],
    workspace: { sandbox },
  } as unknown as RunningCall & { iteration: number };
  const saved: CheckpointInput[] = [];
  const artifacts = {
    saveCheckpoint: async (input: CheckpointInput) => {
      saved.push(input);
      return { iteration: input.iteration } as CheckpointSummary;
    },
  } as unknown as ArtifactStore;
  const reported: string[] = [];
  const events: CheckpointerEvents = {
    saved: (_, iteration) => reported.push(`saved ${iteration}`),
    skipped: () => reported.push('skipped'),
    failed: (error) => reported.push(`failed ${(error as Error).message}`),
    unrestored: () => reported.push('unrestored'),
  };
  const checkpointer = new Checkpointer(artifacts, events, maxLagMs);
  const start = (iteration: number) => {
    call.iteration = iteration;
    checkpointer.start(call, {
      runKey: 'run',
      budget: { usage: { inputTokens: 0, outputTokens: 0, modelCalls: iteration } },
      startedAt: Date.now(),
      hostVariables: new Set(),
      maxVariableBytes: 1024,
    } as never);
  };
  return { snapshots, saved, reported, checkpointer, start };
}

const entry = (digest: string): VariableSnapshotEntry[] => [
  { name: 'x', state: 'saved', bytes: new Uint8Array([1]), digest },
];

/** Whether `promise` settles before the tasks queued now have run. */
async function settlesAtOnce(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

test('an execution need not wait for a snapshot it may preempt; a preempted one is dropped silently', async () => {
  const { snapshots, saved, reported, checkpointer, start } = harness();
  start(1);
  expect(await settlesAtOnce(checkpointer.snapshotTaken())).toBe(true);
  snapshots[0]?.reject(new SnapshotPreemptedError());
  start(2);
  snapshots[1]?.resolve(entry('d2'));
  await checkpointer.saved();
  expect(saved.map((input) => input.iteration)).toEqual([2]);
  expect(reported).toEqual(['saved 2']);
});

test('past the lag (0: always), the next execution waits for the snapshot', async () => {
  const { snapshots, checkpointer, start } = harness(0);
  start(1);
  const taken = checkpointer.snapshotTaken();
  expect(await settlesAtOnce(taken)).toBe(false);
  snapshots[0]?.resolve(entry('d1'));
  await taken;
  await checkpointer.saved();
});

test('a preempted snapshot replacing one waiting for its save leaves that one to be saved', async () => {
  const { snapshots, saved, reported, checkpointer, start } = harness();
  start(1);
  snapshots[0]?.resolve(entry('d1'));
  // Saving 1 takes a while; 2 waits for its save, then 3 replaces it and is preempted.
  start(2);
  start(3);
  snapshots[1]?.resolve(entry('d2'));
  snapshots[2]?.reject(new SnapshotPreemptedError());
  await checkpointer.saved();
  expect(saved.map((input) => input.iteration)).toEqual([1, 2]);
  expect(reported).toEqual(['saved 1', 'saved 2']);
});

test('a snapshot that fails (not preempted) warns', async () => {
  const { snapshots, reported, checkpointer, start } = harness();
  start(1);
  snapshots[0]?.reject(new Error('sandbox gone'));
  await checkpointer.saved();
  expect(reported).toEqual(['failed sandbox gone']);
});
