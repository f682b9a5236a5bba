import { expect, test } from 'vitest';
import { createMemoryArtifactStore } from './create-memory-artifact-store.js';
import { runArtifactStoreConformance } from './testing/run-artifact-store-conformance.js';
import { runRunLeaseConformance } from './testing/run-run-lease-conformance.js';

runArtifactStoreConformance({
  name: 'memory',
  create: () => createMemoryArtifactStore(),
  api: { test, expect },
});
runRunLeaseConformance({
  name: 'memory',
  create: () => createMemoryArtifactStore(),
  api: { test, expect },
});

test('the scope setting picks where records live', async () => {
  await using store = createMemoryArtifactStore({ scope: 'run-7' });
  expect(store.scope).toBe('run-7');
  await store.put('x', { type: 'data', value: 1, description: 'x' });
  expect(await store.scoped('run-7').names()).toEqual(['x']);
  expect(await store.scoped('default').names()).toEqual([]);
});
