import { SandboxError, SnapshotPreemptedError } from '../errors/index.js';
import {
  isolatedEvaluatorName,
  type Sandbox,
  type SandboxFactory,
  type SandboxOptions,
} from '../sandbox.js';
import { describeVariable } from '../sandbox-support/describe-variable.js';
import { type ConformanceSuiteSettings, registerConformanceSuite } from './conformance-suite.js';
import { timeScaled } from './measure-slowdown.js';

/**
 * Settings of {@link runSandboxConformance}: the adapter, and what its engine cannot do,
 * declared rather than skipped.
 */
export interface SandboxConformanceOptions extends ConformanceSuiteSettings<SandboxFactory> {
  /**
   * Whether aborting the signal stops code that is busy computing (it never awaits). An engine
   * that runs model code on the host's own thread cannot see the abort until the code awaits;
   * set `false` and the abort case aborts code that is waiting instead. Default `true`.
   */
  readonly abortStopsBusyCode?: boolean;
}

/** Time an adapter gets to stop runaway code and come back, in milliseconds. */
const runawayTimeoutMs = 300;
const testTimeoutMs = 15_000;

/**
 * Registers the adapter-neutral contract of `Sandbox` as tests: REPL persistence, output
 * capture, errors as values, timeouts and aborts, host functions (concurrency, error
 * crossing), protected names, variable listing and copying, read-only variables, checkpoint
 * snapshots and restores (for adapters that implement them), disposal.
 * Adapters run it first, then their own tests.
 *
 * @example
 * import { describe, expect, test } from 'vitest';
 * import { runSandboxConformance } from '@rlm/core/testing';
 * runSandboxConformance({
 *   name: 'my-sandbox',
 *   create: createMySandbox(),
 *   api: { describe, expect, test },
 * });
 */
export function runSandboxConformance(options: SandboxConformanceOptions): void {
  const { api, create: createSandbox } = options;
  const { expect } = api;
  const abortedCode =
    options.abortStopsBusyCode === false ? 'await new Promise(() => {})' : 'while (true) {}';
  const test = (name: string, fn: () => Promise<void>) => api.test(name, fn, testTimeoutMs);

  async function withSandbox(
    options: Partial<SandboxOptions>,
    body: (sandbox: Sandbox) => Promise<void>,
  ): Promise<void> {
    const sandbox = await createSandbox({ hostFunctions: {}, ...options });
    try {
      await body(sandbox);
    } finally {
      await sandbox.dispose();
    }
  }

  async function expectSandboxError(promise: Promise<unknown>): Promise<void> {
    let caught: unknown;
    try {
      await promise;
    } catch (error) {
      caught = error;
    }
    expect(SandboxError.isInstance(caught)).toBe(true);
  }

  const register = () => {
    test('top-level declarations persist across executions', () =>
      withSandbox({}, async (sandbox) => {
        const first = await sandbox.execute(`
          const a = 1;
          let b = 2;
          var c = 3;
          function add(x, y) { return x + y; }
          class Counter { constructor() { this.n = 4; } }
          const { d, e: [f] } = { d: 5, e: [6] };
          const g = await Promise.resolve(7);
        `);
        expect(first.error).toBeUndefined();
        const second = await sandbox.execute('add(a, b) + c + new Counter().n + d + f + g');
        expect(second.error).toBeUndefined();
        expect(second.output).toBe('28');
        const third = await sandbox.execute('b = 10; add(a, b)');
        expect(third.output).toBe('11');
      }));

    test("an assignment to an undeclared name outside functions creates a variable, as in Node's REPL", () =>
      withSandbox({}, async (sandbox) => {
        const first = await sandbox.execute(`
          total = 41;
          total = total + 1;
          [low, high] = [1, 2];
          for (item of ['a', 'b']) {}
          if (true) { nested = 'kept'; }
        `);
        expect(first.error).toBeUndefined();
        const second = await sandbox.execute('[total, low, high, item, nested].join(",")');
        expect(second.error).toBeUndefined();
        expect(second.output).toBe('42,1,2,b,kept');
        const names = new Set((await sandbox.listVariables()).map((variable) => variable.name));
        for (const name of ['total', 'low', 'high', 'item', 'nested']) {
          expect(names.has(name)).toBe(true);
        }
        // Inside a function strict mode still applies, and a compound update needs a value.
        const inFunction = await sandbox.execute('(() => { leaked = 1; })()');
        expect(inFunction.error).toMatch(/ReferenceError: leaked is not defined/);
        expect((await sandbox.execute('missing += 1')).error).toMatch(/ReferenceError/);
        expect((await sandbox.execute('typeof leaked')).output).toBe('undefined');
      }));

    test('print and console output is captured in order', () =>
      withSandbox({}, async (sandbox) => {
        const result = await sandbox.execute(
          "print('one', 1); console.log('two'); console.info('three'); console.warn('four'); console.error('five');",
        );
        expect(result.error).toBeUndefined();
        expect(result.output.trim().split('\n')).toEqual(['one 1', 'two', 'three', 'four', 'five']);
        expect(typeof result.durationMs).toBe('number');
      }));

    test('the value of the last expression is shown after the output', () =>
      withSandbox({}, async (sandbox) => {
        expect((await sandbox.execute('1 + 1')).output).toBe('2');
        expect((await sandbox.execute("print('first'); 'second'")).output).toBe('first\nsecond');
        expect((await sandbox.execute('({ answer: 42 })')).output).toMatch(/answer.*42/);
        expect((await sandbox.execute('const quiet = 1')).output).toBe('');
        expect((await sandbox.execute('undefined')).output).toBe('');
      }));

    test('errors are values and keep the output printed before them', () =>
      withSandbox({}, async (sandbox) => {
        const thrown = await sandbox.execute("print('before'); throw new Error('boom');");
        expect(thrown.output).toContain('before');
        expect(thrown.error).toMatch(/boom/);
        const syntax = await sandbox.execute('let = ;');
        expect(syntax.error).toMatch(/SyntaxError/);
        const reference = await sandbox.execute('notDefinedAnywhere + 1');
        expect(reference.error).toMatch(/notDefinedAnywhere/);
        expect((await sandbox.execute('2 * 21')).output).toBe('42');
      }));

    test('a timeout stops an infinite loop and the sandbox keeps working', () =>
      withSandbox({}, async (sandbox) => {
        await sandbox.setVariables({ kept: 'host value' });
        await sandbox.execute('const counter = 41');
        const { value: result, scaledMs } = await timeScaled(() =>
          sandbox.execute('while (true) {}', { timeoutMs: runawayTimeoutMs }),
        );
        expect(result.error).toMatch(/time/i);
        expect(scaledMs).toBeLessThan(10_000);
        const after = await sandbox.execute('kept + " " + (counter + 1)');
        expect(after.error).toBeUndefined();
        expect(after.output).toBe('host value 42');
      }));

    test('a promise that never settles times out', () =>
      withSandbox({}, async (sandbox) => {
        const result = await sandbox.execute('await new Promise(() => {})', {
          timeoutMs: runawayTimeoutMs,
        });
        expect(result.error).toMatch(/time/i);
        expect((await sandbox.execute('"still here"')).output).toBe('still here');
      }));

    test('time a host function spends before it returns counts against timeoutMs', () =>
      withSandbox(
        {
          hostFunctions: {
            // A store that hashes and copies a large value before its promise: host time the
            // execution asked for.
            busyStore: () => {
              const until = Date.now() + 4 * runawayTimeoutMs;
              while (Date.now() < until) {
                // Busy on the host's thread, as synchronous work is.
              }
              return Promise.resolve('stored');
            },
          },
        },
        async (sandbox) => {
          await sandbox.execute('const kept = "kept"');
          const result = await sandbox.execute('await busyStore(); await busyStore(); "done"', {
            timeoutMs: runawayTimeoutMs,
          });
          expect(result.error).toMatch(/time/i);
          expect((await sandbox.execute('kept')).output).toBe('kept');
        },
      ));

    test('aborting the signal stops the code and resolves with an error', () =>
      withSandbox({}, async (sandbox) => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 100);
        const { value: result, scaledMs } = await timeScaled(() =>
          sandbox.execute(abortedCode, { signal: controller.signal }),
        );
        expect(result.error).toMatch(/abort/i);
        expect(scaledMs).toBeLessThan(10_000);
        const early = await sandbox.execute('1', { signal: controller.signal });
        expect(early.error).toMatch(/abort/i);
        expect((await sandbox.execute('"alive"')).output).toBe('alive');
      }));

    test('host functions are async globals whose calls overlap', async () => {
      let running = 0;
      let mostAtOnce = 0;
      const slowDouble = async (value: unknown) => {
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        await new Promise((resolve) => setTimeout(resolve, 50));
        running--;
        return (value as number) * 2;
      };
      await withSandbox({ hostFunctions: { slowDouble } }, async (sandbox) => {
        const result = await sandbox.execute(`
          const doubled = await Promise.all(Array.from({ length: 20 }, (_, i) => slowDouble(i)));
          doubled.reduce((sum, value) => sum + value, 0)
        `);
        expect(result.error).toBeUndefined();
        expect(result.output).toBe('380');
        expect(mostAtOnce).toBe(20);
        expect((await sandbox.execute('typeof slowDouble(1).then')).output).toBe('function');
      });
    });

    test('a host rejection reaches model code as a plain Error with only the message', () =>
      withSandbox(
        {
          hostFunctions: {
            failing: async () => {
              throw Object.assign(new TypeError('host says no'), { secret: 'host detail' });
            },
          },
        },
        async (sandbox) => {
          const result = await sandbox.execute(`
            try {
              await failing();
            } catch (error) {
              print(error instanceof Error, error.message, error.cause === undefined, error.secret === undefined);
            }
          `);
          expect(result.error).toBeUndefined();
          expect(result.output.trim()).toBe('true host says no true true');
          const uncaught = await sandbox.execute('await failing()');
          expect(uncaught.error).toMatch(/host says no/);
        },
      ));

    test('an ending function ends the execution at its call, even when the code catches and goes on', async () => {
      const calls: unknown[][] = [];
      const record =
        (name: string) =>
        async (...args: unknown[]) => {
          calls.push([name, ...args]);
          return 'host answer';
        };
      await withSandbox(
        {
          hostFunctions: { finish: record('finish'), tool: record('tool') },
          endingFunctions: ['finish'],
        },
        async (sandbox) => {
          const plain = await sandbox.execute(
            "print('before'); finish(42); print('after'); await tool('after')",
          );
          expect(plain.error).toBeUndefined();
          expect(plain.output.trim()).toBe('before');
          const caught = await sandbox.execute(`
            let late = 'unset';
            try { finish({ a: [1] }); } catch (error) { print('caught', error.message); }
            setTimeout(() => print('timer'), 0);
            late = await tool('past the catch').then(() => 'called', () => 'refused');
            print('still going', late);
            throw new Error('thrown after the end');
          `);
          expect(caught.error).toBeUndefined();
          expect(caught.output.trim()).toBe('');
          const value = await sandbox.execute("try { finish('v') } catch {}\n'last value'");
          expect(value.output.trim()).toBe('');
          const hanging = await sandbox.execute(
            'try { finish(1) } catch {}\nawait new Promise(() => {})',
            { timeoutMs: 10_000 },
          );
          expect(hanging.error).toBeUndefined();
          const unsendable = await sandbox.execute(
            "try { finish(() => 1) } catch (error) { print('refused:', error.message.startsWith('finish')) }\nprint('goes on')",
          );
          expect(unsendable.error).toBeUndefined();
          expect(unsendable.output.trim()).toBe('refused: true\ngoes on');
          const next = await sandbox.execute("print('next', await tool('next'))");
          expect(next.output.trim()).toBe('next host answer');
          expect(calls).toEqual([
            ['finish', 42],
            ['finish', { a: [1] }],
            ['finish', 'v'],
            ['finish', 1],
            ['tool', 'next'],
          ]);
        },
      );
    });

    test('host functions, print, console and read-only variables cannot be overwritten', () =>
      withSandbox({ hostFunctions: { tool: async () => 'tool result' } }, async (sandbox) => {
        await sandbox.setVariables({ context: 'the context' }, { readOnly: true });
        for (const attempt of [
          'print = () => {}',
          'console = {}',
          'tool = null',
          'context = "changed"',
          'const print = 1',
          'let tool = 1',
          'var context = 1',
          'globalThis.print = null',
          'globalThis.context = "changed"',
        ]) {
          await sandbox.execute(attempt);
        }
        const result = await sandbox.execute('print(await tool(), context); console.log("ok")');
        expect(result.error).toBeUndefined();
        expect(result.output.trim()).toBe('tool result the context\nok');
        const assignment = await sandbox.execute('context = "changed"');
        expect(assignment.error).toMatch(/context|read-only|constant/i);
      }));

    test('guest helpers run inside, call host functions, are protected and survive a restart', () =>
      withSandbox(
        {
          hostFunctions: { double: async (value) => (value as number) * 2 },
          guestHelpers: {
            quadruple: 'async (x) => double(await double(x))',
            shout: '(text) => text.toUpperCase() + "!"',
          },
        },
        async (sandbox) => {
          expect((await sandbox.execute('await quadruple(5)')).output).toBe('20');
          expect((await sandbox.execute('shout("hi")')).output).toBe('HI!');
          const overwrite = await sandbox.execute('shout = () => "hacked"');
          expect(overwrite.error).toMatch(/shout/);
          const timedOut = await sandbox.execute('while (true) {}', {
            timeoutMs: runawayTimeoutMs,
          });
          expect(timedOut.error).toMatch(/time/i);
          expect((await sandbox.execute('shout("back")')).output).toBe('BACK!');
          const names = (await sandbox.listVariables()).map((variable) => variable.name);
          expect(names.includes('shout')).toBe(false);
        },
      ));

    test('internal host functions reach guest helpers only; evaluateIsolated sees none of the sandbox', () => {
      const recorded: unknown[] = [];
      return withSandbox(
        {
          hostFunctions: { visible: async () => 'visible' },
          internalHostFunctions: {
            secret: async (value) => {
              recorded.push(value);
              return 'recorded';
            },
          },
          guestHelpers: {
            keep: `(() => { const record = secret; return (value) => record(value); })()`,
            isolated: `(() => { const run = ${isolatedEvaluatorName}; return (source, globals) => run(source, globals); })()`,
          },
        },
        async (sandbox) => {
          expect((await sandbox.execute('await keep("from the helper")')).output).toBe('recorded');
          for (const attempt of [
            'await secret("direct")',
            'await globalThis.secret("global")',
            'await globalThis["sec" + "ret"]("computed")',
            'await eval("secret")("eval")',
            'await Function("return secret")()("function")',
            `await ${isolatedEvaluatorName}("1")`,
          ]) {
            const result = await sandbox.execute(attempt);
            expect(result.error).toMatch(/not defined|not a function/);
          }
          expect(recorded).toEqual(['from the helper']);
          await sandbox.execute('const mine = "model variable"');
          const scope = await sandbox.execute(
            `isolated(${JSON.stringify(
              '[typeof visible, typeof keep, typeof mine, typeof print, typeof secret, typeof globalThis.visible, typeof Function("return visible")(), typeof given, typeof JSON, typeof Date.now()].join(",")',
            )}, { given: 1 })`,
          );
          expect(scope.error).toBeUndefined();
          expect(scope.output).toBe(
            'undefined,undefined,undefined,undefined,undefined,undefined,undefined,number,object,number',
          );
          const fresh = await sandbox.execute(
            'isolated("globalThis.planted = 1; globalThis.JSON = null"); isolated("typeof planted + \\",\\" + typeof JSON")',
          );
          expect(fresh.error).toBeUndefined();
          expect(fresh.output).toBe('undefined,object');
        },
      );
    });

    test('listVariables answers while an execution awaits a host call', async () => {
      let sandbox: Sandbox | undefined;
      const listNames = async () =>
        (await sandbox!.listVariables()).map((variable) => variable.name).join(',');
      sandbox = await createSandbox({ hostFunctions: { listNames } });
      try {
        const result = await sandbox.execute(
          'const early = 1;\nconst seen = await listNames();\nseen',
        );
        expect(result.error).toBeUndefined();
        expect(result.output).toMatch(/early/);
      } finally {
        await sandbox.dispose();
      }
    });

    test('listVariables is sorted by name, shaped, and leaves host functions out', () =>
      withSandbox({ hostFunctions: { tool: async () => null } }, async (sandbox) => {
        await sandbox.setVariables({ zeta: 'z'.repeat(5000), alpha: [1, 2, 3] });
        await sandbox.execute('const middle = { a: 1, b: 2 }; function helper() {}');
        const variables = await sandbox.listVariables();
        const names = variables.map((variable) => variable.name);
        expect(names).toEqual(['alpha', 'helper', 'middle', 'zeta']);
        const byName = new Map(variables.map((variable) => [variable.name, variable]));
        expect(byName.get('alpha')?.type).toBe('array');
        expect(byName.get('alpha')?.size).toBe(3);
        expect(byName.get('middle')?.type).toBe('object');
        expect(byName.get('middle')?.size).toBe(2);
        expect(byName.get('helper')?.type).toBe('function');
        expect(byName.get('zeta')?.type).toBe('string');
        expect(byName.get('zeta')?.size).toBe(5000);
        for (const variable of variables) {
          expect(variable.preview.length).toBeLessThan(121);
        }
      }));

    test('listVariables describes each variable by the one shared rule (type and size)', () =>
      withSandbox({ hostFunctions: {} }, async (sandbox) => {
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
          expect([variable.name, variable.type, variable.size]).toEqual([
            variable.name,
            expected.type,
            expected.size,
          ]);
          expect(variable.preview.length).toBeLessThan(102);
        }
        const map = listed.find((variable) => variable.name === 'map');
        expect([map?.type, map?.size]).toEqual(['map', 1]);
      }));

    test('getVariable returns a copy; unknown and uncopyable names reject', () =>
      withSandbox({}, async (sandbox) => {
        await sandbox.execute(
          'const record = { items: [1, "two", { three: 3 }], flag: true }; const fn = () => 1;',
        );
        const copy = (await sandbox.getVariable('record')) as { items: unknown[] };
        expect(copy).toEqual({ items: [1, 'two', { three: 3 }], flag: true });
        copy.items.push('host change');
        expect((await sandbox.execute('record.items.length')).output).toBe('3');
        await expectSandboxError(sandbox.getVariable('missing'));
        await expectSandboxError(sandbox.getVariable('fn'));
      }));

    test('setVariables defines variables from plain data; readOnly keeps them', () =>
      withSandbox({}, async (sandbox) => {
        await sandbox.setVariables({ base: 20, data: { list: [1, 2] } });
        expect((await sandbox.execute('base + data.list.length')).output).toBe('22');
        expect((await sandbox.execute('base = 30; base')).output).toBe('30');
        await sandbox.setVariables({ fixed: 'original' }, { readOnly: true });
        await sandbox.execute('fixed = "changed"');
        expect((await sandbox.execute('fixed')).output).toBe('original');
        expect(await sandbox.getVariable('fixed')).toBe('original');
        await sandbox.setVariables({ fixed: 'updated by host' }, { readOnly: true });
        expect((await sandbox.execute('fixed')).output).toBe('updated by host');
        await expectSandboxError(sandbox.setVariables({ bad: () => 1 }));
      }));

    test('snapshotVariables (when implemented): structured clones that restoreVariables brings back; unchanged ones send no bytes', async () => {
      const source = await createSandbox({ hostFunctions: {} });
      const target = await createSandbox({ hostFunctions: {} });
      try {
        if (!source.snapshotVariables || !target.restoreVariables) return;
        await source.setVariables({ context: 'host' }, { readOnly: true });
        await source.execute(
          "const counts = new Map([['a', 1]]);\nconst when = new Date(0);\nconst helper = () => 1;",
        );
        const first = await source.snapshotVariables({
          exclude: ['context'],
          maxBytesPerVariable: 1024 * 1024,
        });
        expect(first.map((entry) => `${entry.name}:${entry.state}`)).toEqual([
          'counts:saved',
          'helper:skipped',
          'when:saved',
        ]);
        const bytes: Record<string, Uint8Array> = {};
        const digests: Record<string, string> = {};
        for (const entry of first) {
          if (entry.state === 'saved') {
            bytes[entry.name] = entry.bytes;
            digests[entry.name] = entry.digest;
          }
        }
        const again = await source.snapshotVariables({
          exclude: ['context'],
          maxBytesPerVariable: 1024 * 1024,
          previousDigests: digests,
        });
        expect(again.filter((entry) => entry.state === 'saved')).toEqual([]);
        expect(await target.restoreVariables(bytes)).toEqual([]);
        const check = await target.execute(
          "[counts instanceof Map && counts.get('a'), when instanceof Date && when.getTime()].join()",
        );
        expect(check.output).toBe('1,0');
        await expectSandboxError(source.snapshotVariables({ maxBytesPerVariable: -1 }));
      } finally {
        await source.dispose();
        await target.dispose();
      }
    });

    test('snapshotVariables (when implemented): an execution asked for after it waits for it or preempts it, never mixing states', async () => {
      const source = await createSandbox({ hostFunctions: {} });
      const target = await createSandbox({ hostFunctions: {} });
      try {
        if (!source.snapshotVariables || !target.restoreVariables) return;
        await source.execute(
          'var items = []; for (let i = 0; i < 200000; i++) items.push(i); var marker = "before";',
        );
        const snapshot = source.snapshotVariables({ maxBytesPerVariable: 64 * 1024 * 1024 });
        const outcome = snapshot.then(
          (entries) => ({ entries }),
          (error: unknown) => ({ error }),
        );
        const ran = await source.execute('items[0] = -1; items.push(-2); marker = "after";');
        expect(ran.error).toBeUndefined();
        const taken = await outcome;
        if ('error' in taken) {
          expect(SnapshotPreemptedError.isInstance(taken.error)).toBe(true);
          return;
        }
        const bytes: Record<string, Uint8Array> = {};
        for (const entry of taken.entries)
          if (entry.state === 'saved') bytes[entry.name] = entry.bytes;
        expect(await target.restoreVariables(bytes)).toEqual([]);
        // Everything as it was when the snapshot was asked for.
        const check = await target.execute('[items.length, items[0], marker].join()');
        expect(check.output).toBe('200000,0,before');
      } finally {
        await source.dispose();
        await target.dispose();
      }
    });

    test('dispose is idempotent and later calls reject with SandboxError', async () => {
      const sandbox = await createSandbox({ hostFunctions: {} });
      expect(typeof sandbox[Symbol.asyncDispose]).toBe('function');
      await Promise.all([sandbox.dispose(), sandbox.dispose()]);
      await sandbox[Symbol.asyncDispose]();
      await expectSandboxError(sandbox.execute('1'));
      await expectSandboxError(sandbox.listVariables());
      await expectSandboxError(sandbox.getVariable('x'));
      await expectSandboxError(sandbox.setVariables({ x: 1 }));
    });
  };

  registerConformanceSuite(options, 'Sandbox conformance', register);
}
