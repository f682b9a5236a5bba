import { describe, expect, test } from 'vitest';
import { createQuickJsSandbox } from './create-quickjs-sandbox.js';

// Tests run the built worker: `pnpm build` (turbo runs it before `test`).
const workerUrl = new URL('../dist/worker.js', import.meta.url);
const createSandbox = createQuickJsSandbox({ workerUrl });

describe('createQuickJsSandbox', () => {
  test('after running out of memory, the sandbox restarts with its variables as before and memory is back', async () => {
    await using sandbox = await createSandbox({
      hostFunctions: {},
      // Memory, not time, must end the bomb: the timeout leaves a loaded machine ample room.
      limits: { memoryMb: 32, timeoutMs: 45_000 },
    });
    await sandbox.execute('const kept = "kept"; const list = [1, 2, 3]; function helper() {}');
    const bomb = await sandbox.execute(
      'const hoard = [];\nwhile (true) hoard.push({ text: "x".repeat(64) + hoard.length });',
    );
    // The model is told what it lost; later executions work (the engine once answered every
    // later block with `Uncaught null`).
    expect(bomb.error).toBe(
      'Execution exceeded the memory limit (32 MB); the sandbox restarted with its variables as of before this execution, except helper (functions, class instances and large values cannot be restored).',
    );
    const names = (await sandbox.listVariables()).map((variable) => variable.name);
    expect(names).toEqual(['kept', 'list']);
    const again = await sandbox.execute(
      'const big = "y".repeat(4 * 2 ** 20); [big.length, kept, list.length].join()',
    );
    expect(again.error).toBeUndefined();
    expect(again.output).toBe(`${4 * 2 ** 20},kept,3`);
  });

  test('each sandbox has memory of its own: one running out leaves the other working', async () => {
    await using first = await createSandbox({ hostFunctions: {}, limits: { memoryMb: 32 } });
    await using second = await createSandbox({ hostFunctions: {}, limits: { memoryMb: 32 } });
    await second.execute('const list = Array.from({ length: 1000 }, (_, i) => i)');
    const bomb = await first.execute(
      'const hoard = []; for (;;) hoard.push(new ArrayBuffer(2 ** 22));',
    );
    expect(bomb.error).toMatch(/memory|allocation/i);
    expect((await second.execute('list.reduce((sum, n) => sum + n, 0)')).output).toBe('499500');
  });

  test('a host call that settles after its execution timed out never resumes that code', async () => {
    let release!: (value: string) => void;
    const late = () =>
      new Promise<string>((resolve) => {
        release = resolve;
      });
    await using sandbox = await createSandbox({
      hostFunctions: { late },
      limits: { timeoutMs: 200, hostWaitMs: 200 },
    });
    const result = await sandbox.execute('resumed = await late(); "finished"');
    expect(result.error).toMatch(/timed out/);
    release('too late');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await sandbox.execute('typeof resumed')).output).toBe('undefined');
    expect((await sandbox.execute('"next"')).output).toBe('next');
  });

  test('values reach host functions as data: no guest method runs, shared references stay shared', async () => {
    const received: unknown[] = [];
    const record = async (...values: unknown[]) => {
      received.push(...values);
      return null;
    };
    await using sandbox = await createSandbox({ hostFunctions: { record } });
    const result = await sandbox.execute(`
      class Point { constructor() { this.x = 1; } toJSON() { return 'coerced'; } }
      const shared = { s: 1 };
      const cycle = { name: 'loop' };
      cycle.self = cycle;
      await record(new Point(), new TypeError('bad'), [1, undefined, 2n], [shared, shared], cycle);
    `);
    expect(result.error).toBeUndefined();
    const [point, error, list, pair, cycle] = received as [
      unknown,
      Error,
      unknown[],
      unknown[],
      { self: unknown },
    ];
    expect(point).toEqual({ x: 1 });
    expect(Object.getPrototypeOf(point)).toBe(Object.prototype);
    expect([error.name, error.message]).toEqual(['TypeError', 'bad']);
    expect(list).toEqual([1, undefined, 2n]);
    expect(pair[0]).toBe(pair[1]);
    expect(cycle.self).toBe(cycle);
  });

  test('setVariables and getVariable keep cycles, shared references, bigint, Map, Set and Date', async () => {
    await using sandbox = await createSandbox({ hostFunctions: {} });
    const shared = { s: 1 };
    const cycle: Record<string, unknown> = { n: 10n };
    cycle.self = cycle;
    const value = {
      pair: [shared, shared],
      cycle,
      map: new Map<unknown, unknown>([['k', shared]]),
      set: new Set([1, 2]),
      when: new Date(0),
      nothing: undefined,
      negativeZero: -0,
    };
    await sandbox.setVariables({ value });
    const inside = await sandbox.execute(
      '[value.pair[0] === value.pair[1], value.cycle.self === value.cycle, typeof value.cycle.n, value.map.get("k") === value.pair[0], value.set.has(2), value.when.getTime(), "nothing" in value, Object.is(value.negativeZero, -0)].join(" ")',
    );
    expect(inside.output).toBe('true true bigint true true 0 true true');
    const copy = (await sandbox.getVariable('value')) as typeof value;
    expect(copy.pair[0]).toBe(copy.pair[1]);
    expect(copy.cycle.self).toBe(copy.cycle);
    expect(copy.cycle.n).toBe(10n);
    expect(copy.map.get('k')).toBe(copy.pair[0]);
    expect([...copy.set]).toEqual([1, 2]);
    expect(copy.when.getTime()).toBe(0);
    expect(Object.is(copy.negativeZero, -0)).toBe(true);
  });

  test('var in blocks and loops outside functions persists; a later `var x;` keeps x', async () => {
    await using sandbox = await createSandbox({ hostFunctions: {} });
    await sandbox.execute(
      'var kept = 5; if (true) { var inBlock = 1; } for (var i = 0; i < 3; i++) {} for (var key of ["a", "b"]) {}',
    );
    await sandbox.execute('var kept;');
    expect((await sandbox.execute('[kept, inBlock, i, key].join()')).output).toBe('5,1,3,b');
  });
});
