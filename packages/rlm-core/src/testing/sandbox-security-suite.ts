import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';
import type {
  ExecuteResult,
  HostFunction,
  Sandbox,
  SandboxFactory,
  SandboxLimits,
  SandboxOptions,
} from '../sandbox.js';
import { type ConformanceSuiteSettings, registerConformanceSuite } from './conformance-suite.js';
import { measureSlowdown, sleepScaled, timeScaled } from './measure-slowdown.js';
import {
  attackKit,
  type EscapePayload,
  escapePayloads,
  guestCodeMarker,
  hostCanaryMark,
} from './sandbox-escape-payloads.js';
import { registerPersistenceAttacks } from './sandbox-persistence-attacks.js';

/** Bounds of the resource-abuse cases of {@link runSandboxSecuritySuite}. */
export interface SandboxSecuritySuiteOptions extends ConformanceSuiteSettings<SandboxFactory> {
  /** `timeoutMs` of the abuse sandboxes. Default 500. */
  readonly timeoutMs?: number;
  /**
   * Time a runaway may take past `timeoutMs` before it counts as not stopped, in milliseconds:
   * stopping, restarting and answering. Default 1,000. Every time bound of the suite is in the
   * reference machine's milliseconds: on a slower or loaded machine it grows by the measured
   * slowdown (`timeScaled`).
   */
  readonly stopMarginMs?: number;
  /** `memoryMb` of the abuse sandboxes. Default 128. */
  readonly memoryMb?: number;
  /**
   * Megabytes the process's resident memory may grow past `memoryMb` while an ArrayBuffer bomb
   * runs: what the sandbox allocates before it notices. Default 512.
   */
  readonly memoryMarginMb?: number;
  /** `maxOutputChars` of the abuse sandboxes. Default 10,000. */
  readonly maxOutputChars?: number;
  /**
   * Time 10,000 bridge calls at once may take to settle, in the reference machine's
   * milliseconds. Default 10,000.
   */
  readonly bridgeStormMs?: number;
}

const escapeTimeoutMs = 5_000;
const testTimeoutMs = 90_000;
/**
 * The hang guard of the case that makes 40,000 host calls in turn: an interpreter (QuickJS) on a
 * machine whose cores are all busy took more than 90 s for it. Its bounds are CPU-time ratios.
 */
const hostCallStormTestTimeoutMs = 600_000;
/**
 * `timeoutMs` of the executions that set a case up or check the sandbox after it: no bound of
 * the case, so ample for a loaded machine (the checks bound their time on their own).
 */
const checkTimeoutMs = 30_000;
/** Room for the "dropped" note an adapter may append to capped output, in characters. */
const capNoteChars = 200;
const mebibyte = 1024 * 1024;
const bridgeCalls = 10_000;
/** Host calls one after another in one block, and a tenth of them: the linear-cost check. */
const cheapCalls = 20_000;
const fewCheapCalls = 2_000;
/**
 * What `cheapCalls` may cost (process CPU time) over `fewCheapCalls`: ten times as many calls
 * cost about ten times as much when each costs the same; a cost per call that grows with the
 * calls before it gives a hundred.
 */
const cheapCallsCostRatio = 30;

/** Host intrinsics whose own properties must look the same after every case. */
const watchedIntrinsics: Readonly<Record<string, object>> = {
  Object,
  'Object.prototype': Object.prototype,
  Array,
  'Array.prototype': Array.prototype,
  Function,
  'Function.prototype': Function.prototype,
  'String.prototype': String.prototype,
  'Number.prototype': Number.prototype,
  'Boolean.prototype': Boolean.prototype,
  'Symbol.prototype': Symbol.prototype,
  Promise,
  'Promise.prototype': Promise.prototype,
  'Error.prototype': Error.prototype,
  'RegExp.prototype': RegExp.prototype,
  'Map.prototype': Map.prototype,
  'Set.prototype': Set.prototype,
  'Date.prototype': Date.prototype,
  JSON,
  Math,
  Reflect,
};

/** Prototypes a structured clone may give the host: plain data, nothing of the guest's. */
const plainHostPrototypes = new Set<object | null>([
  null,
  Object.prototype,
  Array.prototype,
  Map.prototype,
  Set.prototype,
  Date.prototype,
  RegExp.prototype,
  ArrayBuffer.prototype,
  DataView.prototype,
  Boolean.prototype,
  Number.prototype,
  String.prototype,
  BigInt.prototype,
  ...[Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError].map(
    (type) => type.prototype as object,
  ),
  ...[
    Int8Array,
    Uint8Array,
    Uint8ClampedArray,
    Int16Array,
    Uint16Array,
    Int32Array,
    Uint32Array,
    Float32Array,
    Float64Array,
    BigInt64Array,
    BigUint64Array,
  ].map((type) => type.prototype as object),
]);

/** Ways host code commonly turns a value into text. */
const hostCoercions: readonly ((value: object) => unknown)[] = [
  (value) => String(value),
  (value) => `${value}`,
  (value) => Number(value),
  (value) => JSON.stringify(value),
  (value) => Object.prototype.toString.call(value),
  (value) => [value].join(','),
];

/**
 * Reports how `value`, received by the host, is more than plain data: a function, a symbol, an
 * accessor, a foreign prototype, shared memory, or a guest function that ran when the host
 * coerced it.
 */
function inspectHostValue(
  value: unknown,
  path: string,
  problems: string[],
  seen = new Set<object>(),
): void {
  if (typeof value === 'function' || typeof value === 'symbol') {
    problems.push(`${path}: a ${typeof value} reached the host`);
    return;
  }
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  for (const coerce of hostCoercions) {
    let text: string;
    try {
      text = String(coerce(value));
    } catch {
      continue;
    }
    if (text.includes(guestCodeMarker)) {
      problems.push(`${path}: guest code ran when the host coerced it (${text.slice(0, 80)})`);
    }
  }
  if (
    value instanceof SharedArrayBuffer ||
    (ArrayBuffer.isView(value) && value.buffer instanceof SharedArrayBuffer)
  ) {
    problems.push(`${path}: shared memory reached the host`);
  }
  if (!plainHostPrototypes.has(Object.getPrototypeOf(value))) {
    problems.push(`${path}: an object with a prototype that is not the host's reached the host`);
  }
  if (ArrayBuffer.isView(value)) return;
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key === 'symbol') {
      problems.push(`${path}: a symbol-keyed property reached the host`);
      continue;
    }
    const descriptor = Reflect.getOwnPropertyDescriptor(value, key) as PropertyDescriptor;
    if (descriptor.get || descriptor.set) {
      problems.push(`${path}.${key}: an accessor reached the host`);
      continue;
    }
    inspectHostValue(descriptor.value, `${path}.${key}`, problems, seen);
  }
  if (value instanceof Map) {
    for (const [key, entry] of value) {
      inspectHostValue(key, `${path} key`, problems, seen);
      inspectHostValue(entry, `${path} entry`, problems, seen);
    }
  } else if (value instanceof Set) {
    for (const entry of value) inspectHostValue(entry, `${path} entry`, problems, seen);
  }
}

/** What guest code is told of the canaries (a read-only variable named `canary`). */
interface CanaryView {
  readonly envName: string;
  readonly secretPath: string;
  readonly writePath: string;
  readonly channelName: string;
}

/** Host state an escape would read or change, and the check that nothing changed. */
interface HostCanaries {
  readonly view: CanaryView;
  /** The value of the environment variable and the content of the secret file. */
  readonly secret: string;
  /** The object at `globalThis.__rlmHostCanary`. */
  readonly hostObject: { readonly mark: string; state: string };
  /** Differences from the state planted: empty when the host is untouched. */
  findDamage(): string[];
  remove(): void;
}

type IntrinsicSnapshot = Map<PropertyKey, PropertyDescriptor> & { prototype?: object | null };

function snapshotIntrinsic(target: object): IntrinsicSnapshot {
  const snapshot: IntrinsicSnapshot = new Map();
  for (const key of Reflect.ownKeys(target)) {
    snapshot.set(key, Reflect.getOwnPropertyDescriptor(target, key) as PropertyDescriptor);
  }
  snapshot.prototype = Object.getPrototypeOf(target);
  return snapshot;
}

function sameDescriptor(a: PropertyDescriptor, b: PropertyDescriptor | undefined): boolean {
  return (
    b !== undefined &&
    Object.is(a.value, b.value) &&
    a.get === b.get &&
    a.set === b.set &&
    a.writable === b.writable &&
    a.enumerable === b.enumerable &&
    a.configurable === b.configurable
  );
}

function environmentText(): string {
  return JSON.stringify(Object.entries(process.env).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function plantHostCanaries(): HostCanaries {
  const secret = `rlm-secret-${randomBytes(12).toString('hex')}`;
  const directory = mkdtempSync(join(tmpdir(), 'rlm-security-'));
  const view: CanaryView = {
    envName: 'RLM_SECURITY_CANARY',
    secretPath: join(directory, 'secret.txt'),
    writePath: join(directory, 'escaped.txt'),
    channelName: `rlm-security-${secret}`,
  };
  writeFileSync(view.secretPath, secret);
  const previousEnv = process.env[view.envName];
  process.env[view.envName] = secret;
  const hostObject = { mark: hostCanaryMark, state: 'untouched' };
  const globals = globalThis as Record<string, unknown>;
  globals.__rlmHostCanary = hostObject;
  const channelMessages: unknown[] = [];
  const channel = new BroadcastChannel(view.channelName);
  channel.onmessage = (event) => channelMessages.push((event as MessageEvent).data);
  channel.unref();

  const environment = environmentText();
  const globalNames = new Set(Reflect.ownKeys(globalThis));
  const intrinsics = new Map(
    Object.entries(watchedIntrinsics).map(([name, target]) => [name, snapshotIntrinsic(target)]),
  );
  return {
    view,
    secret,
    hostObject,
    findDamage() {
      const damage: string[] = [];
      if (environmentText() !== environment) damage.push('process.env changed');
      if (globals.__rlmHostCanary !== hostObject || hostObject.state !== 'untouched') {
        damage.push('the host canary global changed');
      }
      for (const name of Reflect.ownKeys(globalThis)) {
        if (!globalNames.has(name)) damage.push(`a host global appeared: ${String(name)}`);
      }
      for (const name of globalNames) {
        if (!Reflect.getOwnPropertyDescriptor(globalThis, name)) {
          damage.push(`a host global disappeared: ${String(name)}`);
        }
      }
      for (const [name, before] of intrinsics) {
        const after = snapshotIntrinsic(watchedIntrinsics[name] as object);
        if (after.prototype !== before.prototype) damage.push(`${name} has a new prototype`);
        for (const [key, descriptor] of after) {
          if (!sameDescriptor(descriptor, before.get(key))) {
            damage.push(`${name}.${String(key)} changed`);
          }
        }
        for (const key of before.keys()) {
          if (!after.has(key)) damage.push(`${name}.${String(key)} was deleted`);
        }
      }
      if (existsSync(view.writePath)) damage.push(`a file was written: ${view.writePath}`);
      for (const message of channelMessages) {
        damage.push(`the host heard on its BroadcastChannel: ${String(message)}`);
      }
      return damage;
    },
    remove() {
      channel.close();
      delete globals.__rlmHostCanary;
      if (previousEnv === undefined) delete process.env[view.envName];
      else process.env[view.envName] = previousEnv;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The host functions the escape payloads call, and what they saw. */
interface HostProbe {
  readonly hostFunctions: Readonly<Record<string, HostFunction>>;
  /** What the host saw that it should not have: empty when contained. */
  readonly problems: string[];
  /** Runs one execution; a host function called outside any execution is a problem. */
  execute(sandbox: Sandbox, code: string): Promise<ExecuteResult>;
}

function createHostProbe(canaries: HostCanaries): HostProbe {
  const problems: string[] = [];
  let executing = false;
  const shared = { state: 'host', nested: { list: [1, 2, 3] } };
  const sharedText = JSON.stringify(shared);
  const called = (name: string, args: readonly unknown[]) => {
    if (!executing) problems.push(`${name} was called while no execution ran`);
    args.forEach((arg, index) => {
      inspectHostValue(arg, `${name} argument ${index}`, problems);
    });
  };
  const hostFunctions: Record<string, HostFunction> = {
    hostEcho: async (...args) => {
      called('hostEcho', args);
      return args[0];
    },
    hostInspect: async (...args) => {
      called('hostInspect', args);
      return 'inspected';
    },
    hostObject: async (...args) => {
      called('hostObject', args);
      if (JSON.stringify(shared) !== sharedText) problems.push('model code changed a host object');
      return shared;
    },
    hostReject: async (...args) => {
      called('hostReject', args);
      const error = Object.assign(new TypeError('the host says no'), {
        cause: canaries.hostObject,
      });
      Object.defineProperty(error, 'hostDetail', {
        enumerable: true,
        get: () => {
          problems.push('the sandbox read an own getter of a host error');
          return canaries.hostObject;
        },
      });
      throw error;
    },
  };
  return {
    hostFunctions,
    problems,
    async execute(sandbox, code) {
      executing = true;
      try {
        return await sandbox.execute(code);
      } finally {
        executing = false;
      }
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Resolves how `promise` ended, or `pending` when it is still running after `ms` of the
 * reference machine's milliseconds ({@link sleepScaled}).
 */
async function settlesWithin(
  promise: Promise<unknown>,
  ms: number,
): Promise<'resolved' | 'rejected' | 'pending'> {
  const deadline = new AbortController();
  try {
    return await Promise.race([
      promise.then(
        () => 'resolved' as const,
        () => 'rejected' as const,
      ),
      sleepScaled(ms, deadline.signal).then(
        () => 'pending' as const,
        () => 'pending' as const,
      ),
    ]);
  } finally {
    deadline.abort();
  }
}

/**
 * Times `run` in the reference machine's milliseconds ({@link timeScaled}): the stated bounds
 * hold on a loaded or slow machine, and still fail a runaway that is not stopped.
 */
async function timed<T>(run: () => Promise<T>): Promise<{ value: T; elapsedMs: number }> {
  const { value, scaledMs } = await timeScaled(run);
  return { value, elapsedMs: scaledMs };
}

/**
 * Registers the sandbox security suite: more than forty escape payloads across the classic
 * families (constructor chains to the host `Function`, prototype pollution of host objects,
 * `import()` and `require` by every spelling, stack-trace hooks, Proxy and Symbol tricks
 * against host calls, coercion side effects inside host functions, the host environment,
 * timers and shared memory), resource abuse with stated bounds (runaway loops, deep
 * recursion, heap, string and ArrayBuffer bombs, code busy inside a native built-in, output
 * floods, 10,000 bridge calls at once and 20,000 in turn, promises that never settle, code left
 * running after its execution, hostile variables), and attacks across executions and scopes
 * (built-ins changed in place, planted global accessors, a durable-tool method climbing from its
 * arguments).
 *
 * Every escape case runs in a fresh sandbox and asserts that the attack failed inside it, that
 * the sandbox still works afterwards, and that the host is untouched: its environment, its
 * globals and intrinsics, a secret file, a file the attack would write, a `BroadcastChannel`,
 * and what host functions received (plain data only; no guest code ran when the host coerced
 * it). Adapters run it beside `runSandboxConformance`, with the test runner's functions:
 *
 * @example
 * import { describe, expect, test } from 'vitest';
 * import { runSandboxSecuritySuite } from '@rlm/core/testing';
 * runSandboxSecuritySuite({
 *   name: 'my-sandbox',
 *   create: createMySandbox(),
 *   api: { describe, expect, test },
 * });
 */
export function runSandboxSecuritySuite(options: SandboxSecuritySuiteOptions): void {
  const { api, create: createSandbox } = options;
  const { expect } = api;
  const test = (name: string, fn: () => Promise<void>, timeout = testTimeoutMs) =>
    api.test(name, fn, timeout);
  const timeoutMs = options.timeoutMs ?? 500;
  const limits: SandboxLimits = {
    timeoutMs,
    // Host calls that never settle are cut off at the same bound as running code.
    hostWaitMs: timeoutMs,
    memoryMb: options.memoryMb ?? 128,
    maxOutputChars: options.maxOutputChars ?? 10_000,
  };
  const stopMarginMs = options.stopMarginMs ?? 1_000;
  const memoryMarginMb = options.memoryMarginMb ?? 512;
  const bridgeStormMs = options.bridgeStormMs ?? 10_000;
  const stopBoundMs = limits.timeoutMs + stopMarginMs;
  /** A request to a sandbox held by leftover code: noticed after a timeout, retried once. */
  const heldBoundMs = 2 * limits.timeoutMs + stopMarginMs;

  async function runEscape(payload: EscapePayload): Promise<void> {
    const canaries = plantHostCanaries();
    const probe = createHostProbe(canaries);
    let sandbox: Sandbox | undefined;
    try {
      sandbox = await createSandbox({
        hostFunctions: probe.hostFunctions,
        limits: { timeoutMs: escapeTimeoutMs },
      });
      await sandbox.setVariables({ canary: canaries.view }, { readOnly: true });
      const results: ExecuteResult[] = [];
      const attack = await probe.execute(
        sandbox,
        `${attackKit}\n${payload.attack}\n;attackReport()`,
      );
      results.push(attack);
      if (payload.ends === 'error') {
        expect(typeof attack.error).toBe('string');
      } else {
        expect(attack.error).toBeUndefined();
        expect(attack.output.trim().split('\n').at(-1)).toBe('contained');
      }
      if (payload.pauseMs !== undefined) await sleep(payload.pauseMs);
      if (payload.followUp !== undefined) {
        const followUp = await probe.execute(sandbox, payload.followUp);
        results.push(followUp);
        expect(followUp.error).toBeUndefined();
        expect(followUp.output).toBe('contained');
      }
      const alive = await probe.execute(
        sandbox,
        '[typeof print, typeof hostEcho, await hostEcho(21 * 2)].join(" ")',
      );
      results.push(alive);
      expect(alive.error).toBeUndefined();
      expect(alive.output).toBe('function function 42');
      for (const result of results) {
        const text = `${result.output}\n${result.error ?? ''}`;
        expect(text).not.toContain('ESCAPED');
        expect(text).not.toContain(canaries.secret);
      }
      for (const variable of await sandbox.listVariables()) {
        let copy: unknown;
        try {
          copy = await sandbox.getVariable(variable.name);
        } catch {
          continue;
        }
        inspectHostValue(copy, `variable ${variable.name}`, probe.problems);
      }
      expect(probe.problems).toEqual([]);
      expect(canaries.findDamage()).toEqual([]);
    } finally {
      await sandbox?.dispose();
      canaries.remove();
    }
  }

  async function withSandbox(
    overrides: Partial<SandboxLimits>,
    hostFunctions: Readonly<Record<string, HostFunction>>,
    body: (sandbox: Sandbox) => Promise<void>,
  ): Promise<void> {
    const sandbox = await createSandbox({ hostFunctions, limits: { ...limits, ...overrides } });
    try {
      await body(sandbox);
    } finally {
      await sandbox.dispose();
    }
  }

  /** Samples the process's resident memory every few milliseconds until `stop` is called. */
  function samplePeakMemory(): { stop(): number } {
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 2);
    return {
      /** Megabytes the process grew by at its peak. */
      stop() {
        clearInterval(sampler);
        return (Math.max(peak, process.memoryUsage.rss()) - baseline) / mebibyte;
      },
    };
  }

  /**
   * Watches the host's event loop until `stop` is called: the longest it went without running a
   * timer, in the reference machine's milliseconds (divided by the slowdown measured at the
   * start and at `stop`, the larger). Code that runs on the host's thread holds it for as long as
   * it runs.
   */
  function watchHostLoop(): { stop(): number } {
    const slowdown = measureSlowdown();
    let last = performance.now();
    let longest = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 5);
    return {
      stop() {
        clearInterval(ticker);
        const longestMs = Math.max(longest, performance.now() - last);
        return longestMs / Math.max(slowdown, measureSlowdown());
      },
    };
  }

  /** Asserts that `code` is stopped within `boundMs`, with an error matching `pattern`. */
  async function expectStopped(
    sandbox: Sandbox,
    code: string,
    pattern: RegExp,
    boundMs = stopBoundMs,
  ): Promise<ExecuteResult> {
    const { value: result, elapsedMs } = await timed(() => sandbox.execute(code));
    expect(result.error).toMatch(pattern);
    expect(elapsedMs).toBeLessThan(boundMs);
    return result;
  }

  /**
   * Runs what sets a case up (`kept`, by default) and asserts that it ran. It gets
   * {@link checkTimeoutMs}: on a loaded machine a new sandbox's first execution may outlast the
   * case's short timeout, and a set-up that timed out would fail the case later, for the wrong
   * reason (a variable "lost").
   */
  async function define(sandbox: Sandbox, code = 'const kept = "kept"'): Promise<void> {
    const result = await sandbox.execute(code, { timeoutMs: checkTimeoutMs });
    expect(result.error).toBeUndefined();
  }

  /** Asserts that the sandbox answers a plain execution and kept `kept`. */
  async function expectAlive(sandbox: Sandbox): Promise<void> {
    const { value: result, elapsedMs } = await timed(() =>
      sandbox.execute('typeof kept === "undefined" ? "alive" : kept', {
        timeoutMs: checkTimeoutMs,
      }),
    );
    expect(result.error).toBeUndefined();
    expect(result.output).toMatch(/^(alive|kept)$/);
    expect(elapsedMs).toBeLessThan(stopBoundMs);
  }

  /** Asserts that `kept`, defined before a fault, is still there after it. */
  async function expectKept(sandbox: Sandbox): Promise<void> {
    const result = await sandbox.execute('kept', { timeoutMs: checkTimeoutMs });
    expect(result.error).toBeUndefined();
    expect(result.output).toBe('kept');
  }

  const registerEscapes = () => {
    const names = new Set<string>();
    for (const payload of escapePayloads) {
      if (names.has(payload.name)) throw new Error(`duplicate payload name: ${payload.name}`);
      names.add(payload.name);
      test(`escape, ${payload.family}: ${payload.name}`, () => runEscape(payload));
    }
  };

  const registerAbuse = () => {
    test(`an infinite synchronous loop stops within timeoutMs + ${stopMarginMs} ms`, () =>
      withSandbox({}, {}, async (sandbox) => {
        await define(sandbox);
        await expectStopped(sandbox, 'while (true) {}', /time/i);
        await expectStopped(sandbox, 'for (;;) { Math.random(); }', /time/i);
        await expectAlive(sandbox);
        await expectKept(sandbox);
      }));

    test(`infinite asynchronous loops stop within timeoutMs + ${stopMarginMs} ms`, () =>
      withSandbox({}, {}, async (sandbox) => {
        await define(sandbox);
        await expectStopped(sandbox, 'for (;;) await null;', /time/i);
        await expectStopped(
          sandbox,
          'const spin = () => void Promise.resolve().then(spin);\nspin();\nawait new Promise(() => {});',
          /time/i,
        );
        await expectStopped(
          sandbox,
          'for (;;) await new Promise((resolve) => setTimeout(resolve, 0));',
          /time/i,
        );
        await expectAlive(sandbox);
      }));

    test(`a deep recursion ends as an error within timeoutMs + ${stopMarginMs} ms`, () =>
      withSandbox({}, { hostEcho: async (value) => value }, async (sandbox) => {
        // A loaded machine may take longer than timeoutMs to reach the stack's limit: the case is
        // that the recursion ends as an error, soon, and not that the timeout ends it.
        const recursion = await timed(() =>
          sandbox.execute('function down(depth) { return down(depth + 1) + 1; }\ndown(0)', {
            timeoutMs: escapeTimeoutMs,
          }),
        );
        expect(recursion.value.error).toMatch(/RangeError|call stack|recursion/i);
        expect(recursion.elapsedMs).toBeLessThan(stopBoundMs);
        const nested = await timed(() =>
          sandbox.execute(
            'let deep = [];\nfor (let i = 0; i < 100000; i++) deep = [deep];\nprint(deep);\nawait hostEcho(deep).catch((error) => print("refused"));\ndeep',
          ),
        );
        expect(nested.elapsedMs).toBeLessThan(stopBoundMs);
        expect(await settlesWithin(sandbox.getVariable('deep'), stopBoundMs)).not.toBe('pending');
        expect(await settlesWithin(sandbox.listVariables(), stopBoundMs)).toBe('resolved');
        await expectAlive(sandbox);
      }));

    // The timeout leaves a loaded machine ample room: the case is that memory, not time, ends it.
    test('a heap bomb ends with a memory error before its timeout', () =>
      withSandbox({ timeoutMs: 45_000 }, {}, async (sandbox) => {
        await define(sandbox);
        await expectStopped(
          sandbox,
          'const hoard = [];\nwhile (true) hoard.push({ index: hoard.length, text: "x".repeat(64) + hoard.length });',
          /memory/i,
          45_000,
        );
        await expectAlive(sandbox);
      }));

    test(`an ArrayBuffer bomb of 4 GiB stops before the process grows memoryMb + ${memoryMarginMb} MB`, () =>
      withSandbox({ timeoutMs: 10_000 }, {}, async (sandbox) => {
        await define(sandbox);
        const baseline = process.memoryUsage.rss();
        let peak = baseline;
        const sampler = setInterval(() => {
          peak = Math.max(peak, process.memoryUsage.rss());
        }, 2);
        try {
          await expectStopped(
            sandbox,
            'const hoard = [];\nfor (let i = 0; i < 64; i++) { const block = new ArrayBuffer(64 * 2 ** 20); new Uint8Array(block).fill(1); hoard.push(block); }',
            /memory/i,
            10_000,
          );
        } finally {
          clearInterval(sampler);
        }
        expect((peak - baseline) / mebibyte).toBeLessThan(limits.memoryMb + memoryMarginMb);
        await expectStopped(
          sandbox,
          'const reserved = [];\nfor (let i = 0; i < 64; i++) reserved.push(new ArrayBuffer(2 ** 30));',
          /memory|allocation/i,
          10_000,
        );
        await expectAlive(sandbox);
      }));

    // The timeout leaves a loaded machine ample room: memory must end the bomb.
    test(`a bomb of large strings stops before the process grows memoryMb + ${memoryMarginMb} MB; the variables made before it are back`, () =>
      withSandbox({ timeoutMs: 45_000 }, {}, async (sandbox) => {
        await define(sandbox, 'const kept = "kept"; const list = [1, 2, 3];');
        for (let round = 0; round < 2; round++) {
          const memory = samplePeakMemory();
          try {
            await expectStopped(
              sandbox,
              'const hoard = [];\nfor (;;) hoard.push("y".repeat(2 ** 20) + hoard.length);',
              /memory/i,
              45_000,
            );
          } finally {
            expect(memory.stop()).toBeLessThan(limits.memoryMb + memoryMarginMb);
          }
          const after = await sandbox.execute(
            '[kept, list.length, typeof hoard, "z".repeat(8 * 2 ** 20).length].join()',
          );
          expect(after.error).toBeUndefined();
          expect(after.output).toBe(`kept,3,undefined,${8 * 2 ** 20}`);
        }
      }));

    test(`code busy inside a built-in ends within timeoutMs + ${stopMarginMs} ms, the host's event loop never waits on it, and the variables stay`, () =>
      withSandbox({ timeoutMs: 1_000 }, {}, async (sandbox) => {
        const bound = 1_000 + stopMarginMs;
        await define(
          sandbox,
          'const kept = "kept"; const haystack = "a".repeat(200000); const needle = "a".repeat(19999) + "b";',
        );
        for (const code of [
          'haystack.indexOf(needle)',
          'JSON.stringify(new Array(1e6).fill(haystack.slice(0, 32))).length',
          'haystack.repeat(20).replaceAll("a", "bc").length',
        ]) {
          const loop = watchHostLoop();
          const { value: result, elapsedMs } = await timed(() => sandbox.execute(code));
          // A fast engine finishes; a slow one is stopped: either way, in time.
          if (result.error !== undefined) expect(result.error).toMatch(/time/i);
          expect(elapsedMs).toBeLessThan(bound);
          expect(loop.stop()).toBeLessThan(bound);
          await expectKept(sandbox);
        }
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 100);
        const { value: aborted, elapsedMs } = await timed(() =>
          sandbox.execute('haystack.indexOf(needle); haystack.indexOf(needle); "done"', {
            signal: controller.signal,
          }),
        );
        if (aborted.error !== undefined) expect(aborted.error).toMatch(/abort/i);
        expect(elapsedMs).toBeLessThan(bound);
        await expectAlive(sandbox);
      }));

    test('an output flood is capped at maxOutputChars', () =>
      withSandbox({ timeoutMs: 5_000 }, {}, async (sandbox) => {
        const cap = limits.maxOutputChars + capNoteChars;
        // A hundred times the cap, under a generous limit: an interpreter on a loaded machine
        // is slow, and this loop must end on its own.
        const printed = await sandbox.execute(
          `for (let i = 0; i < ${Math.ceil((100 * limits.maxOutputChars) / 120)}; i++) print("flood ".repeat(20));`,
          { timeoutMs: 60_000 },
        );
        expect(printed.error).toBeUndefined();
        expect(printed.output.length).toBeLessThan(cap);
        const shown = await sandbox.execute('"x".repeat(2 ** 24)');
        expect(shown.output.length).toBeLessThan(cap);
        const thrown = await sandbox.execute('throw new Error("x".repeat(2 ** 24))');
        expect(thrown.error?.length).toBeLessThan(cap);
        const endless = await expectStopped(
          sandbox,
          'for (;;) console.log("flood")',
          /time/i,
          5_000 + stopMarginMs,
        );
        expect(endless.output.length).toBeLessThan(cap);
        await expectAlive(sandbox);
      }));

    test(`${bridgeCalls} bridge calls at once each settle within ${bridgeStormMs} ms`, async () => {
      let calls = 0;
      const hostCount = async (value: unknown) => {
        calls++;
        return value;
      };
      // The sandbox's own timeout is the test's: the bound under test is the storm's scaled time.
      await withSandbox({ timeoutMs: testTimeoutMs }, { hostCount }, async (sandbox) => {
        const { value: storm, elapsedMs } = await timed(() =>
          sandbox.execute(
            `const settled = await Promise.allSettled(Array.from({ length: ${bridgeCalls} }, (_, i) => hostCount(i)));\n[settled.length, settled.filter((entry) => entry.status === 'fulfilled').length].join(' ')`,
          ),
        );
        expect(storm.error).toBeUndefined();
        const [settled, fulfilled] = storm.output.split(' ').map(Number);
        expect(settled).toBe(bridgeCalls);
        expect(calls).toBe(fulfilled);
        expect(elapsedMs).toBeLessThan(bridgeStormMs);
        // Calls an execution abandons settle too, and do not reach into the next execution.
        const abandoned = await sandbox.execute(
          `for (let i = 0; i < ${bridgeCalls}; i++) hostCount(i).catch(() => {});\n'abandoned'`,
        );
        expect(abandoned.output).toBe('abandoned');
        await expectAlive(sandbox);
      });
    });

    test(
      `many cheap host calls: ${cheapCalls} in one block cost linear host work; endless ones stop at the timeout or an abort, and never starve the host's event loop`,
      async () => {
        let calls = 0;
        const hostCount = async (value: unknown) => {
          calls++;
          return value;
        };
        const generous = { timeoutMs: 300_000, hostWaitMs: 300_000 };
        await withSandbox(generous, { hostCount }, async (sandbox) => {
          /** Process CPU time (microseconds) of one block making `count` calls in turn. */
          const cost = async (count: number) => {
            const started = process.cpuUsage();
            const result = await sandbox.execute(
              `let made = 0;\nfor (let i = 0; i < ${count}; i++) { await hostCount(i); made++; }\nmade`,
            );
            const { user, system } = process.cpuUsage(started);
            expect(result.error).toBeUndefined();
            expect(result.output).toBe(String(count));
            return user + system;
          };
          await cost(fewCheapCalls);
          const ratios: number[] = [];
          for (let run = 0; run < 2; run++) {
            const few = await cost(fewCheapCalls);
            ratios.push((await cost(cheapCalls)) / few);
          }
          expect(Math.min(...ratios)).toBeLessThan(cheapCallsCostRatio);

          // While guest code hammers the host, the host's own timers and signals still run
          // (Ctrl-C is a signal): a 50 ms timer fires long before the block would end.
          const controller = new AbortController();
          const before = calls;
          const endless = sandbox.execute('for (;;) await hostCount(1);', {
            signal: controller.signal,
          });
          const timerMs = await timed(() => sleep(50)).then(({ elapsedMs }) => elapsedMs);
          expect(timerMs).toBeLessThan(stopBoundMs);
          expect(calls).toBeGreaterThan(before);
          const aborted = performance.now();
          controller.abort();
          const ended = await endless;
          expect(ended.error).toMatch(/abort/i);
          expect(performance.now() - aborted).toBeLessThan(stopBoundMs);
        });
        await withSandbox({}, { hostCount }, async (sandbox) => {
          await define(sandbox);
          await expectStopped(sandbox, 'for (;;) await hostCount(1);', /time/i);
          await expectAlive(sandbox);
        });
      },
      hostCallStormTestTimeoutMs,
    );

    test(`a promise that never settles times out within timeoutMs + ${stopMarginMs} ms`, () =>
      withSandbox({}, { hostNever: () => new Promise(() => {}) }, async (sandbox) => {
        await define(sandbox);
        await expectStopped(sandbox, 'await new Promise(() => {})', /time/i);
        await expectStopped(sandbox, 'await hostNever()', /time/i);
        await expectStopped(sandbox, 'await Promise.all([hostNever(), hostNever()])', /time/i);
        await expectAlive(sandbox);
      }));

    test(`code left running after its execution does not hold the sandbox past 2 × timeoutMs + ${stopMarginMs} ms`, () =>
      withSandbox({}, {}, async (sandbox) => {
        await define(sandbox);
        const detached = await timed(() =>
          sandbox.execute('(async () => { for (;;) await null; })();\n"returned"'),
        );
        expect(detached.value.output).toBe('returned');
        expect(detached.elapsedMs).toBeLessThan(stopBoundMs);
        expect(await settlesWithin(sandbox.listVariables(), heldBoundMs)).toBe('resolved');
        expect(await settlesWithin(sandbox.getVariable('kept'), heldBoundMs)).toBe('resolved');
        await expectAlive(sandbox);
        // An execution sent to a worker still held may time out itself; the one after works.
        await sandbox.execute('(async () => { for (;;) await null; })();');
        const next = await timed(() => sandbox.execute('"next"'));
        expect(next.elapsedMs).toBeLessThan(heldBoundMs);
        await expectAlive(sandbox);
      }));

    test(`an unhandled rejection with hostile getters does not hold the sandbox past 2 × timeoutMs + ${stopMarginMs} ms`, () =>
      withSandbox({}, {}, async (sandbox) => {
        await define(sandbox);
        const rejected = await timed(() =>
          sandbox.execute('Promise.reject(new Proxy({}, { get() { for (;;) {} } }));\n"returned"'),
        );
        expect(rejected.elapsedMs).toBeLessThan(stopBoundMs);
        expect(await settlesWithin(sandbox.listVariables(), heldBoundMs)).toBe('resolved');
        await expectAlive(sandbox);
      }));

    test(`hostile variables do not hold listing, copying or the next execution past 2 × timeoutMs + ${stopMarginMs} ms`, () =>
      withSandbox({}, {}, async (sandbox) => {
        await define(sandbox);
        const defined = await timed(() =>
          sandbox.execute(
            [
              'class Slow {}',
              'const slow = new Slow();',
              'Object.defineProperty(slow, "field", { enumerable: true, get() { for (;;) {} } });',
              'const { proxy: revoked, revoke } = Proxy.revocable({}, {});',
              'revoke();',
              'const trap = new Proxy({}, { ownKeys() { throw new Error("trap"); }, getPrototypeOf() { throw new Error("trap"); } });',
              '"defined"',
            ].join('\n'),
          ),
        );
        expect(defined.value.error).toBeUndefined();
        expect(defined.value.output).toBe('defined');
        expect(defined.elapsedMs).toBeLessThan(stopBoundMs);
        expect(await settlesWithin(sandbox.listVariables(), heldBoundMs)).toBe('resolved');
        for (const name of ['slow', 'revoked', 'trap']) {
          expect(await settlesWithin(sandbox.getVariable(name), heldBoundMs)).not.toBe('pending');
        }
        await expectAlive(sandbox);
      }));
  };

  const register = () => {
    registerEscapes();
    registerAbuse();
    registerPersistenceAttacks({
      test,
      expect,
      withSandbox: async (options: Partial<SandboxOptions>, body) => {
        const sandbox = await createSandbox({
          hostFunctions: {},
          ...options,
          limits: { ...limits, timeoutMs: escapeTimeoutMs, ...options.limits },
        });
        try {
          await body(sandbox);
        } finally {
          await sandbox.dispose();
        }
      },
    });
  };
  registerConformanceSuite(options, 'Sandbox security', register);
}
