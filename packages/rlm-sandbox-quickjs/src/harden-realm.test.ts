import { describe, expect, test } from 'vitest';
import { createQuickJsSandbox } from './create-quickjs-sandbox.js';

// Tests run the built worker: `pnpm build` (turbo runs it before `test`).
const workerUrl = new URL('../dist/worker.js', import.meta.url);
const createSandbox = createQuickJsSandbox({ workerUrl });

describe('hardenRealmSource, in a sandbox', () => {
  test('every object reachable from the built-ins, the sandbox’s globals and syntax is frozen', async () => {
    await using sandbox = await createSandbox({
      hostFunctions: { echo: async (value) => value },
      guestHelpers: { twice: '(x) => x * 2' },
    });
    const census = await sandbox.execute(`
      const roots = Object.getOwnPropertyNames(globalThis)
        .filter((name) => name !== 'globalThis')
        .map((name) => [name, globalThis[name]]);
      // Values this code makes are its own: what they inherit is not.
      for (const [label, made] of [
        ['generator', function* () {}],
        ['async', async function () {}],
        ['async generator', async function* () {}],
        ['array iterator', [][Symbol.iterator]()],
        ['map iterator', new Map()[Symbol.iterator]()],
        ['set iterator', new Set()[Symbol.iterator]()],
        ['string iterator', ''[Symbol.iterator]()],
        ['regexp iterator', /./g[Symbol.matchAll]('')],
        ['iterator helper', [].values().map((x) => x)],
        ['wrapped iterator', Iterator.from({ next() {} })],
        ['arguments', (function () { return arguments; })()],
        ['promise', Promise.resolve()],
        ['error', new Error('e')],
        ['typed array', new Uint8Array(1)],
      ]) {
        roots.push([label + ' prototype', Object.getPrototypeOf(made)]);
      }
      const seen = new Set();
      const open = [];
      const pending = [...roots];
      while (pending.length > 0) {
        const [label, value] = pending.pop();
        if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) continue;
        seen.add(value);
        if (!Object.isFrozen(value)) open.push(label);
        pending.push([label + '.__proto__', Object.getPrototypeOf(value)]);
        for (const key of Reflect.ownKeys(value)) {
          const descriptor = Reflect.getOwnPropertyDescriptor(value, key);
          const path = label + '.' + String(key);
          if ('value' in descriptor) pending.push([path, descriptor.value]);
          else pending.push([path + ' get', descriptor.get], [path + ' set', descriptor.set]);
        }
      }
      [seen.size > 500, open.join(', ') || 'none'].join(' ')
    `);
    expect(census.error).toBeUndefined();
    expect(census.output).toBe('true none');
  });

  test('no value leads to an evaluator; Function and eval still evaluate in the sandbox', async () => {
    await using sandbox = await createSandbox({ hostFunctions: {} });
    for (const reach of [
      '(() => {}).constructor',
      '(async () => {}).constructor',
      '(function* () {}).constructor',
      '(async function* () {}).constructor',
      '({}).constructor.constructor',
      'print.constructor',
    ]) {
      const result = await sandbox.execute(`${reach}('return globalThis')()`);
      expect(result.error).toMatch(/TypeError: \w+ is not reachable from a value in the sandbox/);
    }
    const direct = await sandbox.execute('[Function("return 1 + 1")(), eval("2 + 2")].join()');
    expect(direct.output).toBe('2,4');
  });

  test('own properties override frozen inherited ones, as on an unfrozen realm', async () => {
    await using sandbox = await createSandbox({ hostFunctions: {} });
    const result = await sandbox.execute(`
      const error = new TypeError('bad input');
      error.name = 'InputError';
      const plain = { toString() { return 'plain'; } };
      plain.valueOf = () => 42;
      class Named { toString() { return 'named'; } }
      const built = Object.create(Error.prototype);
      built.message = 'made by hand';
      built.constructor = Named;
      [String(error), \`\${plain}\`, plain + 0, String(new Named()), built.message, built.constructor === Named, Object.prototype.hasOwnProperty.call(Error.prototype, 'message')].join('|')
    `);
    expect(result.error).toBeUndefined();
    expect(result.output).toBe('InputError: bad input|plain|42|named|made by hand|true|true');
    const prototype = await sandbox.execute('Object.prototype.toString = () => "hijacked"');
    expect(prototype.error).toMatch(/TypeError/);
    expect((await sandbox.execute('String({})')).output).toBe('[object Object]');
  });

  test('the global object takes plain variables only', async () => {
    await using sandbox = await createSandbox({ hostFunctions: {} });
    for (const attempt of [
      "Object.defineProperty(globalThis, 'spy', { get() { return 1; } })",
      "Object.defineProperty(globalThis, 'fixed', { value: 1 })",
      'Object.defineProperties(globalThis, { spy: { set(value) {} } })',
      "globalThis.__defineGetter__('spy', () => 1)",
      'Object.setPrototypeOf(globalThis, {})',
      'Object.freeze(globalThis)',
      'Object.preventExtensions(globalThis)',
      'new Proxy(globalThis, {})',
      'Proxy.revocable(globalThis, {})',
    ]) {
      const result = await sandbox.execute(attempt);
      expect(result.error).toMatch(/TypeError: the global object holds plain variables only/);
    }
    const reflected = await sandbox.execute(
      "[Reflect.defineProperty(globalThis, 'spy', { get() { return 1; } }), Reflect.setPrototypeOf(globalThis, {}), Reflect.preventExtensions(globalThis)].join()",
    );
    expect(reflected.output).toBe('false,false,false');
    const plain = await sandbox.execute(
      "Object.defineProperty(globalThis, 'made', { value: 7, writable: true, enumerable: true, configurable: true }); new Proxy({}, {}) instanceof Object",
    );
    expect(plain.error).toBeUndefined();
    expect((await sandbox.listVariables()).map((variable) => variable.name)).toEqual(['made']);
    expect((await sandbox.execute('made = made + 1; made')).output).toBe('8');
  });
});
