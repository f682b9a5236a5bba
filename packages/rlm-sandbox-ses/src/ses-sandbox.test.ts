import { existsSync, readdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { type Sandbox, SandboxError, type SandboxOptions } from '@rlm/core';
import { timeScaled } from '@rlm/core/testing';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createSesSandbox } from './create-ses-sandbox.js';

// Tests run the built worker: `pnpm build` (turbo runs it before `test`).
const workerUrl = new URL('../dist/worker.js', import.meta.url);
const createSandbox = createSesSandbox({ workerUrl });

async function withSandbox(
  options: Partial<SandboxOptions>,
  body: (sandbox: Sandbox) => Promise<void>,
  settings: { snapshotLimitBytes?: number; transferLimitBytes?: number } = {},
): Promise<void> {
  const factory =
    Object.keys(settings).length === 0
      ? createSandbox
      : createSesSandbox({ workerUrl, ...settings });
  const sandbox = await factory({ hostFunctions: {}, ...options });
  try {
    await body(sandbox);
  } finally {
    await sandbox.dispose();
  }
}

describe('no reach to the host', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ hostFunctions: {} });
  });
  afterAll(() => sandbox.dispose());

  test('host globals are absent, also through eval and Function', async () => {
    const names = [
      'process',
      'require',
      'module',
      'Buffer',
      'fetch',
      'WebAssembly',
      'SharedArrayBuffer',
      'Atomics',
      'Compartment',
      'lockdown',
      'setImmediate',
    ];
    const direct = await sandbox.execute(`[${names.map((name) => `typeof ${name}`).join(', ')}]`);
    expect(direct.output).toBe(`[${names.map(() => '"undefined"').join(', ')}]`);
    const viaEval = await sandbox.execute(
      'eval("typeof process") + Function("return typeof require")()',
    );
    expect(viaEval.output).toBe('undefinedundefined');
    const viaGlobal = await sandbox.execute('[Function("return this")(), globalThis.process]');
    expect(viaGlobal.output).toBe('[undefined, undefined]');
  });

  test('constructor chains do not reach the host Function', async () => {
    for (const code of [
      '(function () {}).constructor("return process")()',
      '(async function () {}).constructor("return process")()',
      'Object.getPrototypeOf(function* () {}).constructor("return process")()',
      'globalThis.constructor.constructor("return process")()',
      '[].map.constructor("return process")()',
    ]) {
      const result = await sandbox.execute(code);
      expect(result.error).toMatch(/TypeError/);
    }
  });

  test('a real dynamic import fails with a clear error inside the sandbox', async () => {
    const result = await sandbox.execute(
      'const message = await import("node:fs").then(() => "imported", (error) => error.message); message',
    );
    expect(result.output).toMatch(/import\(\) is not available in the sandbox/);
    expect((await sandbox.execute('await import("node:child_process")')).error).toMatch(
      /not available/,
    );
    expect(
      (await sandbox.execute('await eval("import(\'node:fs\')").catch((e) => e.message)')).output,
    ).toMatch(/not available/);
  });

  test('intrinsics are frozen: no prototype pollution', async () => {
    const result = await sandbox.execute(
      'Object.prototype.polluted = 1; Array.prototype.push = null;',
    );
    expect(result.error).toMatch(/TypeError/);
    expect((await sandbox.execute('[].polluted === undefined && typeof [].push')).output).toBe(
      'function',
    );
  });

  test('errors show the model no host paths', async () => {
    const result = await sandbox.execute('new Error("x").stack');
    expect(result.output).toBe('');
    const thrown = await sandbox.execute('function f() { null.x } f()');
    expect(thrown.error).toBe(
      "TypeError: Cannot read properties of null (reading 'x')\n    at f (line 1)\n    at <top level> (line 1)",
    );
    expect(thrown.error).not.toMatch(/file:|node:|worker/);
  });

  test('eval runs in the sandbox scope, not the host', async () => {
    await sandbox.execute('const secret = 41');
    expect((await sandbox.execute('eval("secret + 1")')).output).toBe('42');
    expect((await sandbox.execute('eval("typeof print")')).output).toBe('function');
    expect((await sandbox.execute('(0, eval)("globalThis") === globalThis')).output).toBe('true');
  });
});

describe('protected names', () => {
  test('the scope object cannot be poisoned to shadow protected names', () =>
    withSandbox({ hostFunctions: { tool: async () => 'host tool' } }, async (sandbox) => {
      await sandbox.setVariables({ context: 'host context' }, { readOnly: true });
      const attacks = [
        '__proto__ = { print: () => "evil", tool: async () => "evil", context: "evil" }',
        '__defineGetter__("print", () => () => "evil")',
        'Object.setPrototypeOf(globalThis, { print: () => "evil" })',
        'Object.defineProperty(globalThis, "context", { value: "evil" })',
        "eval(\"__proto__ = { print: () => 'evil', context: 'evil' }\")",
        "Function(\"__proto__ = { print: () => 'evil', context: 'evil' }\")()",
        "Function(\"__defineGetter__('context', () => 'evil')\")()",
        'delete globalThis.print; delete globalThis.context',
      ];
      for (const attack of attacks) await sandbox.execute(attack);
      const result = await sandbox.execute(`
        print(await tool(), context);
        eval('print(context)');
        Function('print(context)')();
        print(globalThis.context, typeof globalThis.print);
      `);
      expect(result.error).toBeUndefined();
      expect(result.output).toBe(
        'host tool host context\nhost context\nhost context\nhost context function\n',
      );
      expect(await sandbox.getVariable('context')).toBe('host context');
    }));

  test('redeclaring or assigning a protected name fails with a clear error', () =>
    withSandbox({ hostFunctions: { llm_query: async () => 'answer' } }, async (sandbox) => {
      expect((await sandbox.execute('const llm_query = 1')).error).toMatch(
        /Cannot declare llm_query: the sandbox provides it/,
      );
      expect((await sandbox.execute('function print() {}')).error).toMatch(/Cannot declare print/);
      expect((await sandbox.execute('console.log = null')).error).toMatch(/TypeError/);
      expect((await sandbox.execute('llm_query = null')).error).toMatch(
        /llm_query is read-only in this sandbox/,
      );
      expect((await sandbox.execute('function f(print) { return print } f(2)')).output).toBe('2');
      expect((await sandbox.execute('await llm_query()')).output).toBe('answer');
    }));

  test('shared intrinsics cannot be replaced for later executions, however the code tries', () =>
    withSandbox({}, async (sandbox) => {
      const planted = '{ stringify: () => "planted", parse: () => "planted" }';
      const attacks = [
        `JSON = ${planted}`,
        `globalThis.JSON = ${planted}`,
        `Object.defineProperty(globalThis, "JSON", { value: ${planted} })`,
        `Reflect.set(globalThis, "Math", { max: () => "planted" })`,
        'delete globalThis.Promise; delete globalThis.Object',
        `eval('JSON = ${planted.replaceAll('"', '\\"')}')`,
        `Function('globalThis.String = function () { return "planted" }')()`,
        'var Array = function () { return "planted" }',
        'const Date = { now: () => 0 }',
      ];
      // Each attack throws or silently does nothing (Reflect.set answers false).
      for (const attack of attacks) await sandbox.execute(attack);
      expect((await sandbox.execute(`JSON = ${planted}`)).error).toMatch(
        /TypeError: (Assignment to constant variable|Cannot assign to read only property 'JSON')/,
      );
      expect((await sandbox.execute('const Date = { now: () => 0 }')).error).toMatch(
        /Cannot redeclare the built-in Date/,
      );
      const honest = await sandbox.execute(
        'print(JSON.stringify({ a: 1 }), Math.max(1, 2), typeof Promise, String(7), Array.isArray([]), Date.now() > 0, Object.keys({ b: 1 }))',
      );
      expect(honest.error).toBeUndefined();
      expect(honest.output).toBe('{"a":1} 2 function 7 true true ["b"]\n');
    }));

  test('names the sandbox reserves cannot be used', () =>
    withSandbox({}, async (sandbox) => {
      expect((await sandbox.execute('const __rlm_x = 1')).error).toMatch(/reserved/);
      expect((await sandbox.execute('__rlm.g')).error).toMatch(/reserved/);
      await expect(sandbox.setVariables({ __rlm_cells: 1 })).rejects.toThrow(SandboxError);
      await expect(sandbox.setVariables({ print: 1 })).rejects.toThrow(SandboxError);
      await expect(sandbox.setVariables({ undefined: 1 })).rejects.toThrow(SandboxError);
      await expect(sandbox.setVariables({ 'not a name': 1 })).rejects.toThrow(SandboxError);
    }));

  test('host function names must be identifiers other than print and console', async () => {
    await expect(createSandbox({ hostFunctions: { print: async () => 1 } })).rejects.toThrow(
      SandboxError,
    );
    await expect(createSandbox({ hostFunctions: { 'a-b': async () => 1 } })).rejects.toThrow(
      SandboxError,
    );
  });
});

describe('the host bridge', () => {
  test('100 concurrent calls overlap and each settles exactly once', async () => {
    let running = 0;
    let mostAtOnce = 0;
    const calls: unknown[] = [];
    let allArrived!: () => void;
    const arrived = new Promise<void>((resolve) => {
      allArrived = resolve;
    });
    // Every call waits for the hundredth: calls that did not overlap would wait for ever.
    const echo = async (value: unknown) => {
      calls.push(value);
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      if (calls.length === 100) allArrived();
      await arrived;
      running--;
      return value;
    };
    await withSandbox({ hostFunctions: { echo } }, async (sandbox) => {
      const result = await sandbox.execute(`
        let settled = 0;
        const results = await Promise.all(
          Array.from({ length: 100 }, (_, i) => echo(i).then((value) => { settled++; return value; })),
        );
        [settled, new Set(results).size, results.every((value, i) => value === i)]
      `);
      expect(result.error).toBeUndefined();
      expect(result.output).toBe('[100, 100, true]');
      expect(mostAtOnce).toBe(100);
      expect(calls).toHaveLength(100);
    });
  });

  test('results are plain data the model owns; bad values are rejected with a message', async () => {
    const hostFunctions = {
      lookup: async () => ({ nested: { list: [1, 2] }, when: new Date(0) }),
      giveFunction: async () => () => 'host function',
      take: async (value: unknown) => typeof value,
      explode: async () => {
        const error = new Error('secret failure');
        error.stack = 'Error: secret failure\n    at /host/path/file.js:1:1';
        throw Object.assign(error, { cause: new Error('host cause') });
      },
      throwString: async () => {
        throw 'a string';
      },
    };
    await withSandbox({ hostFunctions }, async (sandbox) => {
      const result = await sandbox.execute(`
        const found = await lookup();
        found.nested.list.push(3);
        [Object.getPrototypeOf(found) === Object.prototype, Object.isFrozen(found), found.nested.list.length, found.when instanceof Date]
      `);
      expect(result.output).toBe('[true, false, 3, true]');
      const badResult = await sandbox.execute('await giveFunction()');
      expect(badResult.error).toMatch(/giveFunction returned a value that cannot be copied/);
      const badArgument = await sandbox.execute('await take(() => 1)');
      expect(badArgument.error).toMatch(/take: arguments must be plain data/);
      const failure = await sandbox.execute(`
        try { await explode() } catch (error) {
          print(error.message, JSON.stringify(error.stack), error.cause, Object.keys(error).length)
        }
      `);
      expect(failure.output).toBe('secret failure "" undefined 0\n');
      expect((await sandbox.execute('await throwString()')).error).toMatch(/a string/);
    });
  });

  test('calls made after their execution ended never reach the host', async () => {
    let calls = 0;
    const tick = async () => {
      calls++;
      return calls;
    };
    await withSandbox({ hostFunctions: { tick } }, async (sandbox) => {
      const result = await sandbox.execute(
        '(async () => { for (let i = 0; i < 50; i++) await null; await tick(); })(); "returned"',
        { timeoutMs: Number.POSITIVE_INFINITY },
      );
      expect(result).toMatchObject({ output: 'returned', error: undefined });
      await sandbox.execute('await new Promise((resolve) => setTimeout(resolve, 20))');
      expect(calls).toBe(0);
    });
  });

  test('calls still pending when a worker is replaced are abandoned cleanly', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let answered = 0;
    const slow = async () => {
      await gate;
      answered++;
      return 'late';
    };
    await withSandbox({ hostFunctions: { slow }, limits: { hostWaitMs: 200 } }, async (sandbox) => {
      // A warm worker reaches slow() at once, so the call is pending when the block times out.
      await sandbox.execute('"warm"');
      const result = await sandbox.execute('await slow()', { timeoutMs: 200 });
      expect(result.error).toMatch(/timed out/);
      release();
      await vi.waitFor(() => expect(answered).toBe(1));
      expect((await sandbox.execute('"fine"')).output).toBe('fine');
    });
  });
});

describe('resource limits', () => {
  test('an async infinite loop is stopped', () =>
    withSandbox({}, async (sandbox) => {
      const result = await sandbox.execute('while (true) { await null }', { timeoutMs: 200 });
      expect(result.error).toMatch(/timed out after 200 ms/);
      expect((await sandbox.execute('1')).output).toBe('1');
    }));

  test(
    'time spent awaiting host calls does not count; code spinning while one is pending does',
    () =>
      withSandbox(
        {
          hostFunctions: {
            slowModel: () => new Promise((resolve) => setTimeout(() => resolve('answer'), 3_000)),
          },
        },
        async (sandbox) => {
          const waited = await sandbox.execute(
            'const first = await slowModel();\nconst second = await slowModel();\nfirst + " " + second',
            { timeoutMs: 1_000 },
          );
          expect(waited.error).toBeUndefined();
          expect(waited.output).toBe('answer answer');
          // Six seconds of waiting against a one-second limit: only the idle wait went uncounted.
          expect(waited.durationMs).toBeGreaterThanOrEqual(5_900);
          const { value: spinning, scaledMs } = await timeScaled(() =>
            sandbox.execute('slowModel();\nwhile (true) {}', { timeoutMs: 1_000 }),
          );
          expect(spinning.error).toMatch(/timed out after 1000 ms/);
          expect(scaledMs).toBeLessThan(15_000);
          const microtasks = await sandbox.execute('slowModel();\nwhile (true) { await null }', {
            timeoutMs: 1_000,
          });
          expect(microtasks.error).toMatch(/timed out after 1000 ms/);
          const never = await sandbox.execute('await new Promise(() => slowModel())', {
            timeoutMs: 1_000,
          });
          expect(never.error).toMatch(/timed out/);
          expect((await sandbox.execute('first')).output).toBe('answer');
        },
      ),
    60_000,
  );

  test('computing while a host call stays pending counts, in one stretch or in bursts between pauses', () =>
    withSandbox(
      {
        // A call that stays pending for the whole block, like a slow model.
        hostFunctions: { pendingCall: () => new Promise((resolve) => setTimeout(resolve, 60_000)) },
      },
      async (sandbox) => {
        const timeoutMs = 300;
        const burst = (ms: number) => `{ const t = Date.now(); while (Date.now() - t < ${ms}) {} }`;
        const blocks = [
          // One long computation with the call pending.
          `pendingCall();\n${burst(60_000)}`,
          // Short bursts with pauses between them, as if timed to dodge a responsiveness check.
          `pendingCall();\nfor (;;) { ${burst(40)} await new Promise((resolve) => setTimeout(resolve, 5)); }`,
          // The call awaited inside a loop that computes between calls.
          `for (;;) { const p = pendingCall(); ${burst(100)} await Promise.race([p, null]); }`,
        ];
        for (const code of blocks) {
          const { value: result, scaledMs } = await timeScaled(() =>
            sandbox.execute(code, { timeoutMs }),
          );
          expect(result.error, code).toMatch(/^Execution timed out after 300 ms;/);
          // Stopped near its running-time limit, far before the 60 s the block wants.
          expect(scaledMs, code).toBeLessThan(10 * timeoutMs + 2_000);
        }
      },
    ));

  test('awaiting a slow host call longer than timeoutMs while idle is not stopped', () =>
    withSandbox(
      {
        hostFunctions: {
          slowModel: () =>
            new Promise((resolve) => setTimeout(() => resolve('late answer'), 5_000)),
        },
      },
      async (sandbox) => {
        // The wait is 5x the limit; the limit leaves a loaded machine room for the block's own
        // work (its busy time), which is all the limit counts.
        const result = await sandbox.execute('await slowModel()', { timeoutMs: 1_000 });
        expect(result.error).toBeUndefined();
        expect(result.output).toBe('late answer');
        expect(result.durationMs).toBeGreaterThanOrEqual(4_900);
      },
    ));

  test('a heap bomb hits the memory limit and the sandbox continues', () =>
    withSandbox({ limits: { memoryMb: 96 } }, async (sandbox) => {
      await sandbox.setVariables({ hostValue: 'kept' });
      const result = await sandbox.execute(
        'const hoard = []; while (true) hoard.push("x".repeat(1000) + hoard.length)',
      );
      expect(result.error).toMatch(/memory limit \(96 MB\)/);
      expect((await sandbox.execute('hostValue')).output).toBe('kept');
    }));

  test('an ArrayBuffer bomb, which the V8 heap limit does not count, is stopped', () =>
    withSandbox({ limits: { memoryMb: 96 } }, async (sandbox) => {
      const { value: result, scaledMs } = await timeScaled(() =>
        sandbox.execute(
          'const buffers = []; while (true) buffers.push(new Uint8Array(8 * 1024 * 1024).fill(1))',
        ),
      );
      expect(result.error).toMatch(/memory limit \(96 MB\)/);
      expect(scaledMs).toBeLessThan(10_000);
      expect((await sandbox.execute('"after"')).output).toBe('after');
    }));

  test('memory the host allocates while code runs does not count against the sandbox', () =>
    withSandbox({ limits: { memoryMb: 64 } }, async (sandbox) => {
      const running = sandbox.execute(
        'await new Promise((resolve) => setTimeout(resolve, 400)); "done"',
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const hostMemory = Buffer.alloc(160 * 1024 * 1024, 1);
      const result = await running;
      expect(hostMemory.length).toBeGreaterThan(0);
      expect(result).toMatchObject({ output: 'done', error: undefined });
    }));

  test('an ArrayBuffer bomb that yields between allocations is stopped', () =>
    withSandbox({ limits: { memoryMb: 96 } }, async (sandbox) => {
      const result = await sandbox.execute(`
        const slowBuffers = [];
        while (true) {
          slowBuffers.push(new Uint8Array(8 * 1024 * 1024).fill(1));
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      `);
      expect(result.error).toMatch(/memory limit \(96 MB\)/);
    }));

  test('ArrayBuffers kept across executions count against the limit', () =>
    withSandbox({ limits: { memoryMb: 96 } }, async (sandbox) => {
      const keep =
        'globalThis.kept ??= []; kept.push(new Uint8Array(60 * 1024 * 1024).fill(1)); "kept"';
      expect((await sandbox.execute(keep)).error).toBeUndefined();
      const second = await sandbox.execute(keep);
      expect(second.error).toMatch(/memory limit/);
    }));

  test('a stack overflow does not poison later executions', () =>
    withSandbox({}, async (sandbox) => {
      await sandbox.execute('const survivor = { value: 5 }');
      const overflow = await sandbox.execute(
        'function recurse() { return recurse() + 1 } recurse()',
      );
      expect(overflow.error).toMatch(/RangeError: Maximum call stack size exceeded/);
      // Evaluations attempted at every depth near the stack limit.
      const bumping = await sandbox.execute(`
        let failures = 0;
        function attack(n) {
          try { return attack(n + 1) } catch {
            try { eval('0') } catch { failures++ }
            try { Function('return 0')() } catch { failures++ }
            return n;
          }
        }
        function pad(depth, a, b, c) { return depth > 0 ? pad(depth - 1, a, b, c) : attack(0) }
        for (let depth = 0; depth < 200; depth++) pad(depth, 1, 2, 3);
        'attacked'
      `);
      expect(bumping.output).toBe('attacked');
      const after = await sandbox.execute('survivor.value + eval("1") + Function("return 1")()');
      expect(after.error).toBeUndefined();
      expect(after.output).toBe('7');
    }));

  test('output is capped and the rest counted', () =>
    withSandbox({ limits: { maxOutputChars: 50 } }, async (sandbox) => {
      const result = await sandbox.execute('print("x".repeat(200))');
      expect(result.output).toBe(`${'x'.repeat(50)}\n[… 151 more characters of output dropped]`);
      const value = await sandbox.execute('"y".repeat(10_000_000)');
      expect(value.output.startsWith('y'.repeat(50))).toBe(true);
      expect(value.output).toMatch(/9999950 more characters/);
    }));

  test('output printed before a timeout is kept', () =>
    withSandbox({}, async (sandbox) => {
      // A first execution warms the worker, so that the print itself is not what times out on
      // a loaded machine.
      await sandbox.execute('1');
      const result = await sandbox.execute('print("started"); while (true) {}', {
        timeoutMs: 1000,
      });
      expect(result.output).toBe('started\n');
      expect(result.error).toMatch(/timed out/);
    }));
});

describe('restarts', () => {
  test('a restart restores host variables and small model variables and names the lost ones', () =>
    withSandbox(
      {},
      async (sandbox) => {
        await sandbox.setVariables({ context: 'the context' }, { readOnly: true });
        await sandbox.setVariables({ notes: ['a'] });
        await sandbox.execute(`
          const count = 3;
          let results = [{ id: 1 }];
          function helper() { return 1 }
          class Box {}
          const box = new Box();
          const big = 'z'.repeat(5000);
          notes.push('b');
        `);
        await sandbox.execute('results.push({ id: 2 }); let later = "kept"');
        const result = await sandbox.execute('results.push({ id: 3 }); while (true) {}', {
          timeoutMs: 200,
        });
        expect(result.error).toBe(
          'Execution timed out after 200 ms; the sandbox restarted with its variables as of before this execution, except Box, big, box, helper (functions, class instances and large values cannot be restored).',
        );
        const state = await sandbox.execute(
          '[context, count, results.length, later, notes.join(""), typeof helper]',
        );
        expect(state.output).toBe('["the context", 3, 2, "kept", "ab", "undefined"]');
        expect((await sandbox.execute('count = 4')).error).toMatch(/constant/);
        expect((await sandbox.execute('context = 1')).error).toMatch(/read-only/);
      },
      { snapshotLimitBytes: 4000 },
    ));

  test('a restart restores changes made in place through an alias, a closure or eval', () =>
    withSandbox({}, async (sandbox) => {
      await sandbox.execute(
        'let list = [1]; const alias = list; let untouched = { n: 1 }; function add(x) { list.push(x) }',
      );
      // Each step changes `list` without naming it; the recovery copy must still see it.
      await sandbox.execute('alias.push(2)');
      await sandbox.execute('add(3)');
      await sandbox.execute('eval("li" + "st").push(4)');
      await sandbox.execute('let other = 5');
      const result = await sandbox.execute('list.push(99); while (true) {}', { timeoutMs: 200 });
      expect(result.error).toMatch(/^Execution timed out after 200 ms; the sandbox restarted/);
      const state = await sandbox.execute('[list.join(), untouched.n, other]');
      expect(state.output).toBe('["1,2,3,4", 1, 5]');
    }));

  test('the listing follows changes made in place, through an alias or a closure', () =>
    withSandbox({}, async (sandbox) => {
      const sizeOf = async (name: string) =>
        (await sandbox.listVariables()).find((variable) => variable.name === name)?.size;
      await sandbox.execute('let list = [1]; const alias = list; function grow() { list.push(0) }');
      expect(await sizeOf('list')).toBe(1);
      await sandbox.execute('alias.push(2)');
      expect(await sizeOf('list')).toBe(2);
      await sandbox.execute('grow()');
      expect(await sizeOf('list')).toBe(3);
      await sandbox.execute('globalThis.list.push(4)');
      expect(await sizeOf('list')).toBe(4);
      await sandbox.execute('list = "abc"');
      expect(await sizeOf('list')).toBe(3);
      expect((await sandbox.listVariables()).find((v) => v.name === 'list')?.type).toBe('string');
    }));

  test('a worker that dies outside an execution is replaced on the next call', () =>
    withSandbox({ limits: { memoryMb: 32 } }, async (sandbox) => {
      await sandbox.setVariables({ value: 1 });
      // Too many objects for the worker's heap: it dies deserializing them.
      const tooLarge = Array.from({ length: 1_000_000 }, (_, index) => ({ index }));
      await expect(sandbox.setVariables({ tooLarge })).rejects.toThrow(SandboxError);
      expect((await sandbox.execute('value + 1')).output).toBe('2');
    }));

  test('aborting stops running code quickly and keeps the variables', () =>
    withSandbox({}, async (sandbox) => {
      await sandbox.execute('const before = "still here"');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const { value: result, scaledMs } = await timeScaled(() =>
        sandbox.execute('for (;;) {}', { signal: controller.signal }),
      );
      expect(result.error).toMatch(/^Execution aborted; the sandbox restarted/);
      expect(scaledMs).toBeLessThan(5000);
      expect((await sandbox.execute('before')).output).toBe('still here');
    }));
});

describe('listings', () => {
  const names = async (sandbox: Sandbox) =>
    (await sandbox.listVariables()).map((variable) => variable.name);

  test('the listing right after an execution came with its result: the worker is not asked', () =>
    withSandbox({}, async (sandbox) => {
      await sandbox.execute('const a = 1; let b = "two"');
      await sandbox.execute('b = "changed"; const c = [1, 2]');
      const posted = vi.spyOn(Worker.prototype, 'postMessage');
      try {
        const listing = await sandbox.listVariables();
        expect(listing.map((variable) => [variable.name, variable.preview])).toEqual([
          ['a', '1'],
          ['b', '"changed"'],
          ['c', '[1, 2]'],
        ]);
        expect(posted).not.toHaveBeenCalled();
      } finally {
        posted.mockRestore();
      }
    }));

  test('once the variables may have changed since the execution, the worker is asked', async () => {
    let release!: () => void;
    let paused!: () => void;
    const pausedThere = new Promise<void>((resolve) => {
      paused = resolve;
    });
    await withSandbox(
      {
        hostFunctions: {
          pause: () => {
            paused();
            return new Promise<void>((resolve) => {
              release = resolve;
            });
          },
        },
      },
      async (sandbox) => {
        await sandbox.execute('const a = 1');
        await sandbox.setVariables({ given: 'x' });
        expect(await names(sandbox)).toEqual(['a', 'given']);
        // Set while an execution runs: the listing it sends may be older than the set.
        const running = sandbox.execute('await pause(); const c = 3');
        await pausedThere;
        await sandbox.setVariables({ late: 1 });
        release();
        expect((await running).error).toBeUndefined();
        expect(await names(sandbox)).toEqual(['a', 'c', 'given', 'late']);
      },
    );
  });
});

describe('lifecycle', () => {
  const threadCount = () =>
    existsSync('/proc/self/task') ? readdirSync('/proc/self/task').length : undefined;

  test('dispose terminates every worker, rejects pending work and is idempotent', async () => {
    const before = threadCount();
    const sandbox = await createSandbox({
      hostFunctions: { never: () => new Promise<never>(() => undefined) },
    });
    await sandbox.execute('while (true) {}', { timeoutMs: 100 });
    const pending = sandbox.execute('await never()');
    // A listing is answered while an execution waits; dispose then ends the one still pending.
    await expect(sandbox.listVariables()).resolves.toBeInstanceOf(Array);
    await Promise.all([sandbox.dispose(), sandbox[Symbol.asyncDispose]()]);
    await expect(pending).rejects.toThrow(SandboxError);
    await expect(sandbox.execute('1')).rejects.toThrow(/disposed/);
    await expect(sandbox.getVariable('x')).rejects.toThrow(SandboxError);
    if (before !== undefined) expect(threadCount()).toBe(before);
  });

  test('guest unhandled rejections kill nothing', () =>
    withSandbox(
      { hostFunctions: { fail: async () => Promise.reject(new Error('no')) } },
      async (sandbox) => {
        const result = await sandbox.execute(`
        Promise.reject(new Error('ignored'));
        fail();
        await new Promise((resolve) => setTimeout(resolve, 20));
        'survived'
      `);
        expect(result.error).toBeUndefined();
        expect(result.output).toMatch(/Unhandled rejection: Error: ignored/);
        expect(result.output).toMatch(/survived$/);
        expect((await sandbox.execute('1 + 1')).output).toBe('2');
      },
    ));

  test('large context strings cross once and stay usable', () =>
    withSandbox({}, async (sandbox) => {
      const context = 'line of context\n'.repeat(4 * 1024 * 1024);
      await sandbox.setVariables({ context }, { readOnly: true });
      const result = await sandbox.execute(
        '[context.length, context.slice(0, 4), context.lastIndexOf("line")]',
      );
      expect(result.output).toBe(`[${context.length}, "line", ${context.length - 16}]`);
      const [info] = await sandbox.listVariables();
      expect(info).toEqual({
        name: 'context',
        type: 'string',
        size: context.length,
        preview: expect.stringMatching(/^"line of context\\n/),
      });
      expect(info?.preview.length).toBeLessThanOrEqual(100);
    }));
});

describe('the transfer limit', () => {
  /** One 1 MiB string referenced 4,500 times: 1 MiB in the sandbox, 4.5 GiB once copied. */
  const shared = "const s = 'x'.repeat(2 ** 20);\nconst a = Array(4500).fill(s);";

  test('a value that would expand across the boundary is refused before it is copied', async () => {
    let calls = 0;
    const echo = async (value: unknown) => {
      calls++;
      return Array.isArray(value) ? value.length : typeof value;
    };
    const rssBefore = process.memoryUsage.rss();
    await withSandbox({ hostFunctions: { echo } }, async (sandbox) => {
      const result = await sandbox.execute(
        `${shared}\nlet message;\ntry { await echo(a); } catch (error) { message = error.message; }\nmessage`,
      );
      expect(result.output).toBe(
        'echo: its arguments are too large to leave the sandbox: over 256 MiB once copied (a string counts in full at every place it appears, even one shared string referenced many times)',
      );
      expect(calls).toBe(0);
      const read = sandbox.getVariable('a');
      await expect(read).rejects.toThrow(SandboxError);
      await expect(read).rejects.toThrow(
        /^@rlm\/sandbox-ses: the value is too large to leave the sandbox: over 256 MiB once copied/,
      );
      // Getters run once, while the value is measured: one that answers small then, and 1 MiB
      // when read again, cannot make the clone expand.
      const tricky = await sandbox.execute(
        "let reads = 0;\nconst tricky = Array.from({ length: 4500 }, () => ({ get text() { reads += 1; return reads > 4500 ? s : 'small'; } }));\n[await echo(tricky), reads]",
      );
      expect(tricky.output).toBe('[4500, 4500]');
      // The same data, 4,500 entries of one shared object, crosses as what it is.
      const objects = await sandbox.execute('await echo(Array(4500).fill({ s }))');
      expect(objects.output).toBe('4500');
      expect((await sandbox.getVariable('s')) as string).toHaveLength(2 ** 20);
    });
    // Copying it once would take 4.5 GiB.
    expect(process.memoryUsage.rss() - rssBefore).toBeLessThan(1024 * 2 ** 20);
  });

  test('the setting and the memory limit bound it; pending calls share it', async () => {
    const hold: Array<() => void> = [];
    const echo = (value: unknown) =>
      new Promise((resolve) => {
        hold.push(() => resolve(typeof value === 'string' ? value.length : typeof value));
      });
    await withSandbox(
      { hostFunctions: { echo } },
      async (sandbox) => {
        const tooLarge = await sandbox.execute(
          "try { await echo('x'.repeat(2 ** 20)); } catch (error) { print(error.message); }",
        );
        expect(tooLarge.output).toMatch(
          /^echo: its arguments are too large to leave the sandbox: over 1 MiB/,
        );
        // Estimated at 700 KiB, copied as 1.4 MB (two bytes a character): the copy's size counts.
        const wide = await sandbox.execute(
          "try { await echo('\\u4e00'.repeat(700 * 1024)); } catch (error) { print(error.message); }",
        );
        expect(wide.output).toMatch(/^echo: its arguments are too large to leave the sandbox/);
        // A class instance crosses as a plain object; a function does not cross.
        const shapes = sandbox.execute(
          'class Point { x = 1 }\nconst p = echo(new Point());\nlet refused;\ntry { await echo(() => 1); } catch (error) { refused = error.message; }\n[await p, refused]',
        );
        await vi.waitFor(() => expect(hold).toHaveLength(1));
        hold.shift()?.();
        expect((await shapes).output).toMatch(/^\["object", "echo: arguments must be plain data/);
        // Three calls of 400 KiB each: the third would pass 1 MiB with the other two pending.
        const pending = sandbox.execute(
          "const piece = 'y'.repeat(400 * 1024);\nconst first = [echo(piece), echo(piece)];\nlet third;\ntry { await echo(piece); } catch (error) { third = error.message; }\nprint(third);\nawait Promise.all(first);\nconst fourth = echo(piece);\nawait fourth",
        );
        await vi.waitFor(() => expect(hold).toHaveLength(2));
        for (const release of hold.splice(0)) release();
        await vi.waitFor(() => expect(hold).toHaveLength(1));
        hold.shift()?.();
        const result = await pending;
        expect(result.output).toMatch(
          /^echo: its arguments are too large to leave the sandbox: over 1 MiB once copied, counting the \d+ bytes of arguments of calls still pending \(await them first\)/,
        );
        expect(result.output).toMatch(/\n409600$/);
      },
      { transferLimitBytes: 2 ** 20 },
    );
    await withSandbox({ hostFunctions: { echo }, limits: { memoryMb: 64 } }, async (sandbox) => {
      const result = await sandbox.execute(
        "try { await echo(Array(80).fill('x'.repeat(2 ** 20))); } catch (error) { print(error.message); }",
      );
      expect(result.output).toMatch(/over 64 MiB once copied/);
    });
  });
});
