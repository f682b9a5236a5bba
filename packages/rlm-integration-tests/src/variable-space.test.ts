import { VariableSpace } from '@rlm/core';
import { expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

test('VariableSpace: inject, read, sync and the cached snapshot over a real sandbox', async () => {
  await using sandbox = await sandboxFactory({ hostFunctions: {} });
  const space = new VariableSpace(sandbox);
  expect(space.cached.freshness).toBe('stale');
  await space.inject('limit', 3, true);
  await space.injectAll({ names: ['a', 'b'] });
  expect((await sandbox.execute('limit = 4')).error).toMatch(/limit/);
  await sandbox.execute('const total = names.length + limit');
  const outcome = await space.sync(1);
  expect(outcome.ok).toBe(true);
  expect(space.cached.variables.map((variable) => variable.name)).toEqual([
    'limit',
    'names',
    'total',
  ]);
  expect(space.cached).toMatchObject({ iteration: 1, freshness: 'fresh' });
  expect(await space.read('total')).toBe(5);
  await expect(space.read('missing')).rejects.toThrow(/missing/);
});
