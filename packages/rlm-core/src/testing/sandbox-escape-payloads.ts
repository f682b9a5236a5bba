/**
 * The escape attempts of the sandbox security suite: classic payload families against a
 * JavaScript sandbox, written as model code. Each runs after {@link attackKit} and ends with
 * `attackReport()`, which shows `contained` unless the attack reached something of the host.
 */

/** The families of {@link escapePayloads}. */
export type EscapeFamily =
  | 'constructor chain'
  | 'prototype pollution'
  | 'module loading'
  | 'stack trace'
  | 'proxy and symbol'
  | 'coercion'
  | 'host environment'
  | 'timers and shared memory';

/** One escape attempt. */
export interface EscapePayload {
  readonly family: EscapeFamily;
  /** Unique among the payloads. */
  readonly name: string;
  /** Model code, run after the attack kit; its findings go to `attackFound`. */
  readonly attack: string;
  /**
   * `report` (default): the attack runs to its end and the execution shows the report.
   * `error`: the sandbox refuses the code, or the code ends by throwing; either is an error result.
   */
  readonly ends?: 'report' | 'error';
  /**
   * Model code run in a second execution, after a pause of `pauseMs`, that must show
   * `contained`: for effects that could outlive the attack's execution.
   */
  readonly followUp?: string;
  readonly pauseMs?: number;
}

/** Marks the suite's host functions look for: a guest function ran on the host's side. */
export const guestCodeMarker = 'GUEST-CODE-RAN';

/** A key of the host's canary object, which an attack that reaches it finds. */
export const hostCanaryMark = 'rlm-host-canary';

/**
 * Guest helpers every payload uses. `canary` (a read-only variable the suite sets) names the
 * environment variable, the secret file, the file an escape would write and a
 * `BroadcastChannel`. `attackReach(value, via)` tries to turn a value into host powers (a
 * `process`, a `require`, the host's canary) and uses any it finds; `attackConstructor(F, via)`
 * tries `F` as a function constructor whose functions run outside the sandbox.
 */
export const attackKit = String.raw`
const attackFound = [];
const attackSeen = new Set();
function attackGet(object, key) {
  try { return object === null || object === undefined ? undefined : object[key]; } catch { return undefined; }
}
function attackTry(run) {
  try { return run(); } catch { return undefined; }
}
async function attackSettle(run) {
  try { return await run(); } catch { return undefined; }
}
function attackEscaped(what) { attackFound.push('ESCAPED ' + what); }
function attackUseRequire(candidate, via) {
  if (typeof candidate !== 'function') return;
  attackEscaped(via + ' is a require function');
  attackTry(() => attackFound.push(String(candidate('fs').readFileSync(canary.secretPath, 'utf8'))));
  attackTry(() => candidate('fs').writeFileSync(canary.writePath, 'escaped'));
}
function attackReach(value, via, depth = 0) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
  if (attackSeen.has(value) || depth > 3) return;
  attackSeen.add(value);
  const versions = attackGet(value, 'versions');
  if (typeof attackGet(value, 'pid') === 'number' || typeof attackGet(versions, 'node') === 'string' || typeof attackGet(value, 'dlopen') === 'function') {
    attackEscaped(via + ' is a process object');
    const leaked = attackGet(attackGet(value, 'env'), canary.envName);
    if (leaked !== undefined) attackEscaped(via + ' read the environment: ' + String(leaked));
    attackUseRequire(attackGet(attackGet(value, 'mainModule'), 'require'), via + '.mainModule.require');
    attackTry(() => { value.binding('fs'); attackEscaped(via + '.binding("fs")'); });
  }
  if (attackGet(value, 'name') === 'require' || (typeof attackGet(value, 'resolve') === 'function' && typeof attackGet(value, 'cache') === 'object')) {
    attackUseRequire(value, via);
  }
  if (attackGet(value, 'mark') === '${hostCanaryMark}') {
    attackEscaped(via + ' is the host canary');
    attackTry(() => { value.state = 'tampered'; });
  }
  for (const key of ['process', 'require', 'module', 'global', 'globalThis', 'mainModule', '__rlmHostCanary']) {
    attackReach(attackGet(value, key), via + '.' + key, depth + 1);
  }
}
async function attackConstructor(maker, via) {
  if (typeof maker !== 'function') return;
  const body = 'return typeof process !== "undefined" ? process : typeof require !== "undefined" ? require : globalThis';
  let made = attackTry(() => maker(body));
  if (typeof made !== 'function') made = attackTry(() => new maker(body));
  if (typeof made !== 'function') return;
  let result;
  try {
    result = made();
    if (result && typeof result.next === 'function') result = result.next();
    result = await result;
    if (result && typeof result === 'object' && 'done' in result) result = result.value;
  } catch {
    return;
  }
  attackReach(result, via + '(...)()');
}
function attackReport() {
  return attackFound.length === 0 ? 'contained' : attackFound.join('\n');
}
`;

const hostileArgument = `{ toString() { return '${guestCodeMarker}'; }, valueOf() { return '${guestCodeMarker}'; }, toJSON() { return '${guestCodeMarker}'; } }`;

/** The escape attempts, by family. */
export const escapePayloads: readonly EscapePayload[] = [
  // ---- constructor chains to the host Function ----
  {
    family: 'constructor chain',
    name: 'function constructor',
    attack: `await attackConstructor((function () {}).constructor, 'function.constructor');
await attackConstructor(Function, 'Function');
await attackConstructor(Function.prototype.constructor, 'Function.prototype.constructor');`,
  },
  {
    family: 'constructor chain',
    name: 'constructor of a constructor',
    attack: `await attackConstructor((() => {}).constructor.constructor, 'arrow.constructor.constructor');
await attackConstructor(({}).constructor.constructor, '({}).constructor.constructor');
await attackConstructor([].map.constructor, '[].map.constructor');
await attackConstructor(Object.getPrototypeOf(Object).constructor, 'Object.__proto__.constructor');`,
  },
  {
    family: 'constructor chain',
    name: 'async, generator and async generator function constructors',
    attack: `await attackConstructor((async () => {}).constructor, 'AsyncFunction');
await attackConstructor((function* () {}).constructor, 'GeneratorFunction');
await attackConstructor((async function* () {}).constructor, 'AsyncGeneratorFunction');
await attackConstructor(Object.getPrototypeOf(async function* () {}).constructor, 'AsyncGeneratorFunction.prototype.constructor');`,
  },
  {
    family: 'constructor chain',
    name: 'top-level this and the global object',
    attack: `attackReach(this, 'this');
await attackConstructor(attackGet(attackGet(this, 'constructor'), 'constructor'), 'this.constructor.constructor');
attackReach(globalThis, 'globalThis');
await attackConstructor(globalThis.constructor.constructor, 'globalThis.constructor.constructor');
await attackConstructor(Object.getPrototypeOf(globalThis).constructor.constructor, 'globalThis.__proto__.constructor.constructor');`,
  },
  {
    family: 'constructor chain',
    name: 'bridge function constructor',
    attack: `attackReach(hostEcho, 'hostEcho');
await attackConstructor(hostEcho.constructor, 'hostEcho.constructor');
await attackConstructor(Object.getPrototypeOf(hostEcho).constructor, 'hostEcho.__proto__.constructor');
await attackConstructor(attackGet(attackGet(hostEcho, 'prototype'), 'constructor'), 'hostEcho.prototype.constructor');
for (const key of Reflect.ownKeys(hostEcho)) attackReach(attackGet(hostEcho, key), 'hostEcho.' + String(key));`,
  },
  {
    family: 'constructor chain',
    name: 'print and console constructors',
    attack: `await attackConstructor(print.constructor, 'print.constructor');
await attackConstructor(console.log.constructor, 'console.log.constructor');
await attackConstructor(console.constructor.constructor, 'console.constructor.constructor');
for (const key of Reflect.ownKeys(console)) attackReach(attackGet(console, key), 'console.' + String(key));`,
  },
  {
    family: 'constructor chain',
    name: 'timer, clock and timer handle constructors',
    attack: `await attackConstructor(setTimeout.constructor, 'setTimeout.constructor');
await attackConstructor(clearTimeout.constructor, 'clearTimeout.constructor');
await attackConstructor(Date.now.constructor, 'Date.now.constructor');
await attackConstructor(Math.random.constructor, 'Math.random.constructor');
const attackHandle = setTimeout(() => {}, 0);
attackReach(attackHandle, 'timer handle');
await attackConstructor(attackGet(attackGet(attackHandle, 'constructor'), 'constructor'), 'timer handle constructor');
clearTimeout(attackHandle);`,
  },
  {
    family: 'constructor chain',
    name: 'host result constructor',
    attack: `const attackResult = await hostObject();
attackReach(attackResult, 'hostObject()');
await attackConstructor(attackResult.constructor.constructor, 'hostObject().constructor.constructor');
await attackConstructor(attackResult.nested.list.constructor.constructor, 'hostObject().nested.list.constructor.constructor');
await attackConstructor(attackResult.nested.list.map.constructor, 'hostObject().nested.list.map.constructor');`,
  },
  {
    family: 'constructor chain',
    name: 'bridge promise constructor',
    attack: `const attackPending = hostEcho(1);
attackReach(attackPending, 'hostEcho(1)');
await attackConstructor(attackPending.constructor.constructor, 'promise.constructor.constructor');
await attackConstructor(attackPending.then.constructor, 'promise.then.constructor');
await attackPending;`,
  },
  {
    family: 'constructor chain',
    name: 'host error constructor',
    attack: `try {
  await hostReject();
} catch (error) {
  attackReach(error, 'host error');
  for (const key of Reflect.ownKeys(error)) attackReach(attackGet(error, key), 'host error.' + String(key));
  await attackConstructor(error.constructor.constructor, 'host error.constructor.constructor');
  await attackConstructor(attackGet(Object.getPrototypeOf(error), 'constructor')?.constructor, 'host error.__proto__.constructor.constructor');
}`,
  },
  {
    family: 'constructor chain',
    name: 'engine error constructor',
    attack: `try { null.property; } catch (error) { await attackConstructor(error.constructor.constructor, 'TypeError.constructor.constructor'); }
try { (function recurse() { recurse(); })(); } catch (error) { await attackConstructor(error.constructor.constructor, 'RangeError.constructor.constructor'); attackReach(error, 'stack overflow error'); }
try { hostEcho(() => 1); } catch (error) { await attackConstructor(error.constructor.constructor, 'clone error.constructor.constructor'); }
try { await hostEcho(() => 1); } catch (error) { await attackConstructor(error.constructor.constructor, 'clone rejection.constructor.constructor'); attackReach(error, 'clone rejection'); }`,
  },
  {
    family: 'constructor chain',
    name: 'Reflect.construct, bind and call on Function',
    attack: `await attackConstructor((body) => Reflect.construct(Function, [body]), 'Reflect.construct(Function)');
await attackConstructor(Function.prototype.bind.call(Function, null), 'bound Function');
await attackConstructor((body) => Function.prototype.call.call(Function, null, body), 'Function.prototype.call.call(Function)');
await attackConstructor((body) => Reflect.apply(Function, undefined, [body]), 'Reflect.apply(Function)');`,
  },
  {
    family: 'constructor chain',
    name: 'eval in every form',
    attack: `await attackConstructor((body) => eval('(function () {' + body + '})'), 'eval');
await attackConstructor((body) => (0, eval)('(function () {' + body + '})'), 'indirect eval');
await attackConstructor((body) => globalThis.eval('(function () {' + body + '})'), 'globalThis.eval');
await attackConstructor((body) => eval.call(null, '(function () {' + body + '})'), 'eval.call');
attackReach(attackTry(() => eval('this')), 'eval("this")');
attackReach(attackTry(() => Function('return this')()), 'Function("return this")()');`,
  },
  {
    family: 'constructor chain',
    name: 'caller and arguments',
    attack: `async function attackCallers(found, via) {
  attackReach(found, via);
  await attackConstructor(attackGet(found, 'constructor'), via + '.constructor');
}
function attackCaller() { return attackTry(() => attackCaller.caller) ?? attackTry(() => arguments.callee.caller); }
await attackCallers(attackCaller(), 'function.caller');
await attackCallers(attackTry(() => print.caller), 'print.caller');
await attackCallers(attackTry(() => hostEcho.arguments), 'hostEcho.arguments');
await attackCallers(attackTry(() => Function('return arguments.callee.caller')()), 'Function caller');
await attackCallers(await attackSettle(() => new Promise((resolve) => setTimeout(function timerCallback() { resolve(attackTry(() => timerCallback.caller)); }, 0))), 'timer callback caller');
const attackSortCallers = [];
[3, 1, 2].sort(function comparator(a, b) { attackSortCallers.push(attackTry(() => comparator.caller)); return a - b; });
for (const found of attackSortCallers) await attackCallers(found, 'sort comparator caller');`,
  },
  {
    family: 'constructor chain',
    name: 'prototype walk from every sandbox-provided object',
    attack: `for (const [label, start] of [['print', print], ['console', console], ['hostEcho', hostEcho], ['setTimeout', setTimeout], ['canary', canary], ['eval', eval], ['Function', Function]]) {
  for (let current = start, depth = 0; current !== null && current !== undefined && depth < 8; current = attackTry(() => Object.getPrototypeOf(current)), depth++) {
    attackReach(current, label + ' prototype ' + depth);
    await attackConstructor(attackGet(current, 'constructor'), label + ' prototype ' + depth + '.constructor');
    await attackConstructor(attackGet(attackGet(current, 'constructor'), 'constructor'), label + ' prototype ' + depth + '.constructor.constructor');
  }
}`,
  },

  // ---- prototype pollution of host objects ----
  {
    family: 'prototype pollution',
    name: 'assignment to Object.prototype',
    attack: `attackTry(() => { Object.prototype.polluted = 'yes'; });
attackTry(() => { ({}).__proto__.polluted = 'yes'; });
attackTry(() => { Object.prototype.toString = () => 'polluted'; });
attackTry(() => { Object.prototype.then = (resolve) => resolve('polluted'); });
attackTry(() => { Array.prototype.polluted = 'yes'; });
attackTry(() => { Function.prototype.polluted = 'yes'; });`,
  },
  {
    family: 'prototype pollution',
    name: 'defineProperty and setPrototypeOf on intrinsics',
    attack: `attackTry(() => Object.defineProperty(Object.prototype, 'polluted', { get() { return 'yes'; }, configurable: true }));
attackTry(() => Reflect.defineProperty(Array.prototype, 'polluted', { value: 'yes' }));
attackTry(() => Reflect.set(Function.prototype, 'polluted', 'yes'));
attackTry(() => Object.setPrototypeOf(Object.prototype, { polluted: 'yes' }));
attackTry(() => Object.setPrototypeOf(Array.prototype, { polluted: 'yes' }));
attackTry(() => Object.defineProperty(Promise.prototype, 'then', { value() { return 'polluted'; } }));`,
  },
  {
    family: 'prototype pollution',
    name: 'replacing builtin methods with spies',
    attack: `const attackSpy = (owner, key) => attackTry(() => {
  const original = owner[key];
  owner[key] = function (...args) { attackReach(this, 'spy ' + key + ' this'); for (const arg of args) attackReach(arg, 'spy ' + key + ' argument'); return Reflect.apply(original, this, args); };
});
attackSpy(Array.prototype, 'push');
attackSpy(Array.prototype, 'join');
attackSpy(Function.prototype, 'call');
attackSpy(Function.prototype, 'apply');
attackSpy(Promise.prototype, 'then');
attackSpy(JSON, 'stringify');
attackSpy(Object, 'keys');
attackSpy(String.prototype, 'split');
attackSpy(Map.prototype, 'get');
print('after the spies', [1, 2], { a: 1 });
await hostEcho([1, 2]);`,
  },
  {
    family: 'prototype pollution',
    name: '__proto__ and constructor.prototype keys sent to the host',
    attack: `await hostInspect(JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}'));
await hostInspect([JSON.parse('{"__proto__": {"polluted": "yes"}}')], { nested: JSON.parse('{"__proto__": {"polluted": "yes"}}') });
const attackRoundTrip = await hostEcho(JSON.parse('{"__proto__": {"polluted": "yes"}}'));
if (({}).polluted !== undefined) attackFound.push('the sandbox Object.prototype changed');
attackReach(attackRoundTrip, 'round trip');`,
  },
  {
    family: 'prototype pollution',
    name: 'mutating a host result',
    attack: `const attackShared = await hostObject();
attackShared.state = 'tampered';
attackShared.nested.list.push(4);
attackTry(() => { attackShared.__proto__.polluted = 'yes'; });
attackTry(() => { Object.getPrototypeOf(attackShared.nested.list).polluted = 'yes'; });
attackTry(() => { attackShared.constructor.prototype.polluted = 'yes'; });`,
    followUp: `(await hostObject()).state === 'host' ? 'contained' : 'a host result was shared'`,
  },
  {
    family: 'prototype pollution',
    name: 'variables the host copies out',
    attack: `globalThis.leaky = JSON.parse('{"__proto__": {"polluted": "yes"}, "toString": "not a function"}');
var leakyList = Object.assign([1, 2], { polluted: 'yes' });
var leakyDate = new Date(0);`,
  },
  {
    family: 'prototype pollution',
    name: 'redefining bridge globals',
    attack: `attackTry(() => Object.defineProperty(globalThis, 'hostEcho', { value: () => 'hijacked' }));
attackTry(() => { delete globalThis.hostEcho; });
attackTry(() => { globalThis.__proto__ = { hostEcho: () => 'hijacked', print: () => {} }; });
attackTry(() => Object.setPrototypeOf(globalThis, { hostEcho: () => 'hijacked' }));
attackTry(() => { __proto__ = { hostEcho: () => 'hijacked', print: () => {} }; });
attackTry(() => { globalThis.console = { log() {} }; });
attackTry(() => Object.defineProperty(globalThis, 'canary', { value: { envName: 'PATH' } }));`,
    followUp: `(await hostEcho('still the host')) === 'still the host' && typeof print === 'function' && canary.envName !== 'PATH' ? 'contained' : 'a bridge global was replaced'`,
  },

  // ---- import() and require by every spelling ----
  {
    family: 'module loading',
    name: 'dynamic import of node builtins',
    attack: `for (const specifier of ['fs', 'node:fs', 'child_process', 'node:worker_threads', 'os', 'module', 'vm']) {
  attackReach(await attackSettle(() => import(specifier)), 'import(' + specifier + ')');
}`,
  },
  {
    family: 'module loading',
    name: 'import() spellings',
    attack: `attackReach(await attackSettle(() => import("fs")), 'import("fs")');
attackReach(await attackSettle(() => import(\`node:fs\`)), 'import(template)');
attackReach(await attackSettle(() => import ( 'fs' )), 'import ( )');
attackReach(await attackSettle(() => import/**/('fs')), 'import/**/()');
attackReach(await attackSettle(() => import(
  'fs'
)), 'import on lines');
attackReach(await attackSettle(() => import('fs', { with: { type: 'json' } })), 'import with attributes');
attackReach(await attackSettle(() => import({ toString() { return 'fs'; } })), 'import(object)');`,
  },
  {
    family: 'module loading',
    name: 'data: and file: URL imports',
    attack: `attackReach(await attackSettle(() => import('data:text/javascript,export default globalThis.process')), 'data: import');
attackReach(await attackSettle(() => import('file://' + canary.secretPath)), 'file: import');
attackReach(await attackSettle(() => import('file:///proc/self/environ')), 'file: environ');`,
  },
  {
    family: 'module loading',
    name: 'import() inside eval and Function',
    attack: `attackReach(await attackSettle(() => eval("import('fs')")), 'eval import');
attackReach(await attackSettle(() => (0, eval)("import('node:fs')")), 'indirect eval import');
attackReach(await attackSettle(() => Function("return import('fs')")()), 'Function import');
attackReach(await attackSettle(() => new Function('specifier', 'return import(specifier)')('fs')), 'new Function import');
attackReach(await attackSettle(() => (async () => {}).constructor("return await import('fs')")()), 'AsyncFunction import');`,
  },
  {
    family: 'module loading',
    name: 'import spelled at run time',
    attack: `attackReach(await attackSettle(() => eval('imp' + 'ort("fs")')), 'concatenated import');
attackReach(await attackSettle(() => Function(String.fromCharCode(114, 101, 116, 117, 114, 110, 32) + 'imp' + 'ort("fs")')()), 'char-coded import');
attackReach(await attackSettle(() => eval('im\\\\u0070ort("fs")')), 'escaped import keyword');
attackReach(await attackSettle(() => eval(['i', 'm', 'p', 'o', 'r', 't'].join('') + '("os")')), 'joined import');`,
  },
  {
    family: 'module loading',
    name: 'import.meta',
    attack: `attackReach(attackTry(() => eval('import.meta')), 'eval import.meta');
attackReach(attackTry(() => Function('return import.meta')()), 'Function import.meta');
attackReach(await attackSettle(() => (async () => {}).constructor('return import.meta')()), 'AsyncFunction import.meta');`,
  },
  {
    family: 'module loading',
    name: 'static import declaration',
    attack: `import fs from 'node:fs';
fs.writeFileSync(canary.writePath, 'escaped');`,
    ends: 'error',
  },
  {
    family: 'module loading',
    name: 'export and re-export declarations',
    attack: `export * from 'node:fs';
export { readFileSync } from 'node:fs';`,
    ends: 'error',
  },
  {
    family: 'module loading',
    name: 'require by name',
    attack: `for (const name of ['require', 'module', 'exports', 'process', '__non_webpack_require__', 'createRequire', 'global']) {
  attackReach(attackTry(() => globalThis[name]), 'globalThis.' + name);
  attackReach(attackTry(() => eval(name)), 'eval(' + name + ')');
  attackReach(attackTry(() => Function('return ' + name)()), 'Function(' + name + ')');
}
attackUseRequire(attackTry(() => require), 'require');
attackReach(attackTry(() => require('fs')), 'require("fs")');
attackReach(attackTry(() => module.constructor._load('fs')), 'module.constructor._load');
attackReach(attackTry(() => process.mainModule.require('fs')), 'process.mainModule.require');`,
  },
  {
    family: 'module loading',
    name: 'require through escapes',
    attack: `attackReach(attackTry(() => \\u0072equire('fs')), 'escaped require');
attackReach(attackTry(() => globalThis['req' + 'uire']), 'computed require');
attackReach(attackTry(() => globalThis['\\x72equire']), 'hex-escaped require');
attackReach(attackTry(() => Function('return req' + 'uire')()), 'concatenated require');
attackReach(attackTry(() => eval('\\\\u0072equire')), 'eval escaped require');`,
  },

  // ---- stack-trace hooks ----
  {
    family: 'stack trace',
    name: 'prepareStackTrace call sites',
    attack: `attackTry(() => {
  Error.prepareStackTrace = (error, sites) => {
    for (const site of sites) {
      attackReach(attackTry(() => site.getThis()), 'call site this');
      attackReach(attackTry(() => site.getFunction()), 'call site function');
    }
    return 'hooked';
  };
});
attackTry(() => new Error('probe').stack);
try { null.property; } catch (error) { attackTry(() => error.stack); }
try { await hostReject(); } catch (error) { attackTry(() => error.stack); }
try { await hostEcho(() => 1); } catch (error) { attackTry(() => error.stack); }`,
  },
  {
    family: 'stack trace',
    name: 'prepareStackTrace fired from runtime frames',
    attack: `attackTry(() => {
  Error.prepareStackTrace = (error, sites) => {
    for (const site of sites) {
      attackReach(attackTry(() => site.getThis()), 'runtime call site this');
      attackReach(attackTry(() => site.getFunction()), 'runtime call site function');
    }
    return 'hooked';
  };
});
const attackTrigger = { get probe() { attackTry(() => new Error('inside the runtime').stack); return 1; } };
print(attackTrigger);
await attackSettle(() => hostEcho(attackTrigger));
attackTry(() => JSON.stringify(attackTrigger));
setTimeout(() => attackTry(() => new Error('in a timer').stack), 0);
await new Promise((resolve) => setTimeout(resolve, 5));`,
  },
  {
    family: 'stack trace',
    name: 'captureStackTrace and stackTraceLimit',
    attack: `const attackHolder = {};
attackTry(() => { Error.stackTraceLimit = Infinity; });
attackTry(() => Error.captureStackTrace(attackHolder));
attackReach(attackTry(() => attackHolder.stack), 'captured stack');
attackTry(() => Error.captureStackTrace(attackHolder, print));
attackTry(() => Error.captureStackTrace(attackHolder, hostEcho));
const attackStack = String(attackTry(() => attackHolder.stack) ?? '');
if (/node:internal|file:\\/\\//.test(attackStack)) attackFound.push('a captured stack shows host frames: ' + attackStack);`,
  },
  {
    family: 'stack trace',
    name: 'error texts show no host paths',
    attack: `const attackTexts = [];
const attackCollect = (error) => attackTexts.push(String(attackTry(() => error.stack) ?? ''), String(attackTry(() => error.message) ?? ''));
try { null.property; } catch (error) { attackCollect(error); }
try { await hostReject(); } catch (error) { attackCollect(error); }
try { await hostEcho(() => 1); } catch (error) { attackCollect(error); }
try { (function recurse() { recurse(); })(); } catch (error) { attackCollect(error); }
try { eval('let = ;'); } catch (error) { attackCollect(error); }
try { setTimeout('code'); } catch (error) { attackCollect(error); }
try { await import('fs'); } catch (error) { attackCollect(error); }
for (const text of attackTexts) {
  if (/node:internal|file:\\/\\/|node_modules|\\.[cm]?[jt]s:\\d+/.test(text)) attackFound.push('an error shows a host path: ' + text);
}`,
  },

  // ---- Proxy and Symbol tricks against host calls ----
  {
    family: 'proxy and symbol',
    name: 'proxies as host arguments',
    attack: `const attackTrap = new Proxy({ plain: 1 }, {
  get(target, key, receiver) { attackReach(receiver, 'proxy receiver'); return Reflect.get(target, key); },
  ownKeys(target) { return Reflect.ownKeys(target); },
  getPrototypeOf() { return Array.prototype; },
});
await attackSettle(() => hostInspect(attackTrap));
await attackSettle(() => hostInspect([attackTrap]));
await attackSettle(() => hostInspect({ nested: attackTrap }));
await attackSettle(() => hostInspect(new Proxy([1, 2], {})));`,
  },
  {
    family: 'proxy and symbol',
    name: 'proxies as this, new and apply of host functions',
    attack: `await attackSettle(() => Reflect.apply(hostInspect, new Proxy({}, { get() { attackFound.push('a host call read its this'); } }), ['proxy this']));
await attackSettle(() => hostInspect.call(globalThis, 'global this'));
await attackSettle(() => new hostInspect('new'));
await attackSettle(() => Reflect.construct(hostInspect, ['construct']));
await attackSettle(() => hostInspect.apply(null, new Proxy(['proxy arguments'], {})));
await attackSettle(() => hostInspect(...new Proxy(['spread arguments'], {})));`,
  },
  {
    family: 'proxy and symbol',
    name: 'getters on host arguments',
    attack: `let attackGetterRuns = 0;
await attackSettle(() => hostInspect({ get value() { attackGetterRuns++; return 'plain'; } }));
await attackSettle(() => hostInspect([{ get nested() { attackGetterRuns++; return { deeper: 1 }; } }]));
await attackSettle(() => hostInspect(Object.defineProperty({}, 'hidden', { get() { attackGetterRuns++; return 1; }, enumerable: false })));`,
  },
  {
    family: 'proxy and symbol',
    name: 'symbols on and as host arguments',
    attack: `await attackSettle(() => hostInspect({
  [Symbol.toPrimitive]: () => '${guestCodeMarker}',
  [Symbol.iterator]: function* () { yield '${guestCodeMarker}'; },
  [Symbol.for('nodejs.util.inspect.custom')]: () => '${guestCodeMarker}',
  [Symbol.toStringTag]: '${guestCodeMarker}',
  plain: 1,
}));
await attackSettle(() => hostInspect(Symbol('a symbol')));
await attackSettle(() => hostInspect([Symbol.iterator]));`,
  },
  {
    family: 'proxy and symbol',
    name: 'species and hasInstance tricks',
    attack: `class AttackArray extends Array {
  static get [Symbol.species]() { attackFound.push('Symbol.species read on the host side'); return Array; }
  static [Symbol.hasInstance]() { return true; }
}
const attackSpecies = AttackArray.from([1, 2, 3]);
await attackSettle(() => hostInspect(attackSpecies));
const attackBack = await attackSettle(() => hostEcho(attackSpecies));
if (Object.getPrototypeOf(attackBack) === AttackArray.prototype) attackFound.push('a host copy kept the guest prototype');`,
  },
  {
    family: 'proxy and symbol',
    name: 'thenables through the bridge',
    attack: `await attackSettle(() => hostInspect({ then(resolve) { resolve('${guestCodeMarker}'); } }));
await attackSettle(() => hostInspect(Promise.resolve(1)));
await attackSettle(() => hostInspect({ then: 'not callable' }));
const attackThenable = await attackSettle(() => hostEcho({ then: 1 }));
attackReach(attackThenable, 'thenable round trip');`,
  },
  {
    family: 'proxy and symbol',
    name: 'revoked and throwing proxies given to the runtime',
    attack: `{
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  const hostile = new Proxy(function () {}, {
    get() { throw new Error('trap'); }, ownKeys() { throw new Error('trap'); },
    getPrototypeOf() { throw new Error('trap'); }, getOwnPropertyDescriptor() { throw new Error('trap'); },
  });
  attackTry(() => print(proxy, hostile));
  attackTry(() => console.log([proxy], { hostile }));
  await attackSettle(() => hostInspect(proxy));
  await attackSettle(() => hostInspect(hostile));
  await attackSettle(() => Promise.reject(proxy));
}`,
  },
  {
    family: 'proxy and symbol',
    name: 'throwing a revoked proxy',
    attack: `{
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  throw proxy;
}`,
    ends: 'error',
  },

  // ---- toString/valueOf/Symbol.toPrimitive side effects inside host functions ----
  {
    family: 'coercion',
    name: 'toString, valueOf and toJSON on host arguments',
    attack: `await attackSettle(() => hostInspect(${hostileArgument}));
await attackSettle(() => hostInspect([${hostileArgument}]));
await attackSettle(() => hostInspect({ inner: ${hostileArgument} }));`,
  },
  {
    family: 'coercion',
    name: 'Symbol.toPrimitive on host arguments',
    attack: `await attackSettle(() => hostInspect({ [Symbol.toPrimitive]() { return '${guestCodeMarker}'; } }));
await attackSettle(() => hostInspect([{ [Symbol.toPrimitive]() { return '${guestCodeMarker}'; } }]));
await attackSettle(() => hostEcho('' + { [Symbol.toPrimitive]() { return 'coerced in the guest'; } }));`,
  },
  {
    family: 'coercion',
    name: 'class instances with coercion methods',
    attack: `class AttackSneaky {
  constructor() { this.field = 1; }
  toString() { return '${guestCodeMarker}'; }
  valueOf() { return '${guestCodeMarker}'; }
  toJSON() { return '${guestCodeMarker}'; }
  [Symbol.toPrimitive]() { return '${guestCodeMarker}'; }
  get [Symbol.toStringTag]() { return '${guestCodeMarker}'; }
}
await attackSettle(() => hostInspect(new AttackSneaky()));
await attackSettle(() => hostInspect([new AttackSneaky()], new Map([[new AttackSneaky(), new AttackSneaky()]])));`,
  },
  {
    family: 'coercion',
    name: 'boxed primitives, dates and regular expressions',
    attack: `class AttackDate extends Date {
  toString() { return '${guestCodeMarker}'; }
  toISOString() { return '${guestCodeMarker}'; }
  [Symbol.toPrimitive]() { return '${guestCodeMarker}'; }
}
class AttackRegExp extends RegExp {
  exec() { return ['${guestCodeMarker}']; }
  get flags() { return 'g'; }
}
await attackSettle(() => hostInspect(Object.assign(new String('text'), { extra: 1 }), new Number(5), new Boolean(false)));
await attackSettle(() => hostInspect(new AttackDate(0), new AttackRegExp('a', 'g'), /b/g));`,
  },
  {
    family: 'coercion',
    name: 'errors with hostile fields as host arguments',
    attack: `const attackError = new Error('plain message');
attackError.toString = () => '${guestCodeMarker}';
attackError.cause = ${hostileArgument};
await attackSettle(() => hostInspect(attackError));
const attackTypeError = new TypeError('typed');
Object.defineProperty(attackTypeError, 'name', { value: { toString() { return '${guestCodeMarker}'; } } });
await attackSettle(() => hostInspect(attackTypeError));
await attackSettle(() => hostInspect(new AggregateError([${hostileArgument}], 'aggregate')));`,
  },

  // ---- reading the host environment ----
  {
    family: 'host environment',
    name: 'process and node globals',
    attack: `for (const name of ['process', 'require', 'module', 'exports', '__dirname', '__filename', 'Buffer', 'global', 'setImmediate', 'setInterval', 'queueMicrotask', 'performance', 'Deno', 'Bun']) {
  const value = attackTry(() => globalThis[name]);
  attackReach(value, name);
  if (name === 'Buffer' && typeof value === 'function') attackEscaped('Buffer is available');
}
if (typeof process !== 'undefined') attackEscaped('typeof process is ' + typeof process);`,
  },
  {
    family: 'host environment',
    name: 'environment variables',
    attack: `const attackEnvSources = [
  () => process.env,
  () => globalThis.process.env,
  () => Function('return process.env')(),
  () => eval('process').env,
  () => this.process.env,
];
for (const source of attackEnvSources) {
  const env = attackTry(source);
  if (env !== undefined) attackEscaped('an environment: ' + String(attackGet(env, canary.envName)));
}`,
  },
  {
    family: 'host environment',
    name: 'network APIs',
    attack: `for (const name of ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'navigator', 'Request', 'Response', 'Headers', 'WebTransport']) {
  if (attackTry(() => globalThis[name]) !== undefined) attackEscaped(name + ' is available');
}
await attackSettle(async () => { await fetch('http://127.0.0.1:9/'); attackEscaped('fetch ran'); });`,
  },
  {
    family: 'host environment',
    name: 'channels to the host',
    attack: `for (const name of ['BroadcastChannel', 'MessageChannel', 'MessagePort', 'Worker', 'SharedWorker', 'postMessage', 'parentPort', 'onmessage', 'close']) {
  if (attackTry(() => globalThis[name]) !== undefined) attackEscaped(name + ' is available');
}
attackTry(() => new BroadcastChannel(canary.channelName).postMessage('ESCAPED through a BroadcastChannel'));
attackTry(() => postMessage('ESCAPED through postMessage'));`,
  },
  {
    family: 'host environment',
    name: 'census of the global object',
    attack: `for (let current = globalThis, depth = 0; current !== null && depth < 4; current = attackTry(() => Object.getPrototypeOf(current)), depth++) {
  for (const key of attackTry(() => Reflect.ownKeys(current)) ?? []) {
    const descriptor = attackTry(() => Reflect.getOwnPropertyDescriptor(current, key));
    if (descriptor === undefined) continue;
    const label = 'global ' + String(key);
    attackReach(descriptor.value, label);
    attackReach(descriptor.get, label + ' getter');
    if (descriptor.get) attackReach(attackTry(() => descriptor.get.call(globalThis)), label + ' getter value');
    const value = descriptor.value;
    if (value !== null && (typeof value === 'object' || typeof value === 'function')) {
      for (const inner of attackTry(() => Reflect.ownKeys(value)) ?? []) attackReach(attackGet(value, inner), label + '.' + String(inner));
    }
  }
}`,
  },
  {
    family: 'host environment',
    name: 'the host global canary',
    attack: `attackReach(attackTry(() => globalThis['__rlmHostCanary']), 'globalThis.__rlmHostCanary');
attackReach(attackTry(() => eval('__rlm' + 'HostCanary')), 'eval __rlmHostCanary');
attackReach(attackTry(() => Function('return __rlm' + 'HostCanary')()), 'Function __rlmHostCanary');
if (attackTry(() => globalThis['__rlmHostCanary']) !== undefined) attackEscaped('the host global is visible');`,
  },

  // ---- timers and SharedArrayBuffer games ----
  {
    family: 'timers and shared memory',
    name: 'timer callbacks given as strings',
    attack: `attackTry(() => setTimeout('globalThis.escapedByTimer = typeof process', 0));
attackTry(() => setTimeout({ toString() { return 'globalThis.escapedByTimer = 1'; } }, 0));
attackTry(() => setTimeout(null, 0));
await new Promise((resolve) => setTimeout(resolve, 10));`,
    followUp: `typeof globalThis.escapedByTimer === 'undefined' ? 'contained' : 'a string timer ran: ' + globalThis.escapedByTimer`,
  },
  {
    family: 'timers and shared memory',
    name: 'timers that outlive their execution',
    attack: `setTimeout(() => { print('LATE OUTPUT'); globalThis.lateWrite = true; hostInspect('late call'); }, 20);
setTimeout(() => { throw new Error('LATE THROW'); }, 25);`,
    followUp: `await new Promise((resolve) => setTimeout(resolve, 10));
typeof globalThis.lateWrite === 'undefined' ? 'contained' : 'a timer outlived its execution'`,
    pauseMs: 80,
  },
  {
    family: 'timers and shared memory',
    name: 'clearing timers the sandbox does not own',
    attack: `for (let id = -5; id < 2000; id++) attackTry(() => clearTimeout(id));
attackTry(() => clearTimeout({ valueOf() { return 1; } }));
attackTry(() => clearTimeout(undefined));
const attackTicked = await new Promise((resolve) => setTimeout(() => resolve('ticked'), 5));
if (attackTicked !== 'ticked') attackFound.push('timers stopped working');
if ((await hostEcho('bridge')) !== 'bridge') attackFound.push('the bridge stopped working');`,
  },
  {
    family: 'timers and shared memory',
    name: 'odd timer delays and arguments',
    attack: `for (const delay of [-1, NaN, Infinity, -Infinity, 2 ** 53, '10', { valueOf() { return 1; } }, 1e10]) {
  attackTry(() => setTimeout(() => { globalThis.oddTimerFired = String(delay); }, delay, 'argument'));
}
await new Promise((resolve) => setTimeout(resolve, 15));`,
    followUp: `await new Promise((resolve) => setTimeout(resolve, 5));
'contained'`,
  },
  {
    family: 'timers and shared memory',
    name: 'SharedArrayBuffer and Atomics',
    attack: `const AttackShared = attackTry(() => SharedArrayBuffer)
  ?? attackTry(() => new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer.constructor);
if (typeof AttackShared === 'function') {
  const shared = new AttackShared(16);
  await attackSettle(() => hostInspect(new Int32Array(shared)));
  await attackSettle(() => hostInspect(shared));
  attackTry(() => Atomics.wait(new Int32Array(shared), 0, 0, 10));
}`,
  },
];
