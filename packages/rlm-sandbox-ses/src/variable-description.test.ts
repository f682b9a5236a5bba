import { describeVariable } from '@rlm/core/sandbox-support';
import { expect, test } from 'vitest';
import { createSesSandbox } from './create-ses-sandbox.js';

// Tests run the built worker: `pnpm build` (turbo runs it before `test`).
const createSandbox = createSesSandbox({
  workerUrl: new URL('../dist/worker.js', import.meta.url),
});

test('the listing describes each variable by the shared rule (type and size)', async () => {
  await using sandbox = await createSandbox({ hostFunctions: {} });
  const code =
    'const text = "four"; const list = [1, 2, 3]; const map = new Map([[1, 2]]);\n' +
    'const set = new Set([1, 2]); const record = { a: 1, b: 2 }; const nothing = null;\n' +
    'const count = 7; const fn = () => 1';
  expect((await sandbox.execute(code)).error).toBeUndefined();
  const values: Record<string, unknown> = {
    text: 'four',
    list: [1, 2, 3],
    map: new Map([[1, 2]]),
    set: new Set([1, 2]),
    record: { a: 1, b: 2 },
    nothing: null,
    count: 7,
    fn: () => 1,
  };
  const listed = await sandbox.listVariables();
  expect(listed.map((variable) => variable.name).sort()).toEqual(Object.keys(values).sort());
  for (const variable of listed) {
    const expected = describeVariable(variable.name, values[variable.name], () => '');
    expect([variable.type, variable.size], variable.name).toEqual([expected.type, expected.size]);
    expect(variable.preview.length).toBeLessThanOrEqual(101);
  }
  expect(listed.find((variable) => variable.name === 'map')).toMatchObject({
    type: 'map',
    size: 1,
  });
});
