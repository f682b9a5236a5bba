import { createMemoryArtifactStore } from '@rlm/artifacts';
import { expect, test } from 'vitest';
import { type StoreFailure, StoreFailureWatch } from './watch-store-failures.js';

test('failed writes through any scoped view are recorded; the first is reported once', async () => {
  const store = createMemoryArtifactStore();
  const reported: StoreFailure[] = [];
  const watch = new StoreFailureWatch((failure) => reported.push(failure));
  const watched = watch.wrap(store);
  const run = watched.scoped('run-1');
  expect(run.scope).toBe('run-1');
  await run.put('kept', { type: 'data', value: 1, description: 'kept' });
  // Reads pass through untouched.
  expect((await run.get('kept'))?.value).toBe(1);
  expect(watch.take()).toEqual([]);
  // A closed store fails every write with ArtifactStoreError, as a broken backend does.
  await store.close();
  await expect(run.store('lost')).rejects.toThrow('the artifact store is closed');
  await expect(
    run.saveCheckpoint({
      runKey: 'run-1',
      callId: 'root',
      iteration: 1,
      transcript: [{ role: 'user', content: 'q' }],
      variableNames: [],
      variables: {},
      budget: {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        modelCalls: 1,
        elapsedMs: 0,
      },
    }),
  ).rejects.toThrow('the artifact store is closed');
  expect(reported).toEqual([
    { operation: 'store', message: expect.stringMatching(/^the artifact store is closed/) },
  ]);
  expect(watch.take().map((failure) => failure.operation)).toEqual(['store', 'saveCheckpoint']);
  expect(watch.take()).toEqual([]);
});

test("the caller's errors (a value that is not JSON, a name taken) are not store failures", async () => {
  const store = createMemoryArtifactStore();
  const reported: StoreFailure[] = [];
  const watch = new StoreFailureWatch((failure) => reported.push(failure));
  const watched = watch.wrap(store);
  await watched.put('name', { type: 'data', value: 1, description: 'one' });
  await expect(
    watched.put('name', { type: 'data', value: 2, description: 'two' }),
  ).rejects.toMatchObject({ name: 'ArtifactConflictError' });
  await expect(
    watched.put('bad', { type: 'data', value: 10n, description: 'bigint' }),
  ).rejects.toMatchObject({ name: 'ArtifactValueError' });
  expect(reported).toEqual([]);
  expect(watch.take()).toEqual([]);
  await watched.close();
});
