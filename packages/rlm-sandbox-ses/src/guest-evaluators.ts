/**
 * The powers and evaluators a compartment's global object gets: the clock, random source and
 * timers, and `eval`/`Function` that rewrite code as the REPL does (see `rewriteEvalCode`).
 */
import type { GuestTimers } from './guest-timers.js';
import { evalName, importName, regExpName, rewriteEvalCode } from './rewrite-code.js';

/**
 * Powers SES leaves out of compartments by default, given back on purpose: the clock and a
 * (non-secure) random source of the start compartment, and timers bounded to one execution;
 * the compartment's own `Compartment` and `lockdown` are taken away.
 */
export function givePowers(global: Record<PropertyKey, unknown>, timers: GuestTimers): void {
  Object.assign(global, {
    Date,
    Math,
    setTimeout: harden(timers.setTimeout),
    clearTimeout: harden(timers.clearTimeout),
  });
  for (const name of ['Compartment', 'lockdown']) Reflect.deleteProperty(global, name);
}

/**
 * An `eval` for `compartment`: a concise method, named `eval`, not a constructor. Each call
 * gets a fresh SES evaluator, so nothing guest code does to one evaluation's scope outlives it.
 */
export function makeEval(
  compartment: Compartment,
  lexicals: () => object,
): (source: unknown) => unknown {
  const { eval: sandboxEval } = {
    eval(source: unknown): unknown {
      if (typeof source !== 'string') return source;
      return compartment.evaluate(rewriteEvalCode(source), {
        __moduleShimLexicals__: lexicals(),
      });
    },
  };
  return harden(sandboxEval);
}

/** Fixes `eval` and a `Function` constructor built on it on `global`. */
export function installEvaluators(
  global: Record<PropertyKey, unknown>,
  sandboxEval: (source: unknown) => unknown,
): void {
  for (const [name, value] of [
    ['eval', sandboxEval],
    ['Function', makeFunctionConstructor(sandboxEval, global)],
  ] as const) {
    Object.defineProperty(global, name, { value, writable: false, configurable: false });
  }
}

function makeFunctionConstructor(
  sandboxEval: (source: unknown) => unknown,
  global: Record<PropertyKey, unknown>,
): Function {
  const guestFunction = global.Function as Function;
  function SandboxFunction(...args: unknown[]): unknown {
    const body = args.length > 0 ? `${args.at(-1)}` : '';
    const parameters = args
      .slice(0, -1)
      .map((parameter) => `${parameter}`)
      .join(',');
    return sandboxEval(`(function anonymous(${parameters}\n) {\n${body}\n})`);
  }
  Object.defineProperties(SandboxFunction, {
    name: { value: 'Function' },
    prototype: { value: guestFunction.prototype, writable: false },
  });
  return harden(SandboxFunction);
}

/**
 * Evaluates `source` in a new Compartment: the standard built-ins with the start
 * compartment's clock and random source, the execution's timers, evaluators that rewrite
 * code as the main ones do, and the own properties of `globals`; nothing of the main
 * compartment's global object.
 */
export function evaluateIsolated(
  source: unknown,
  globals: unknown,
  powers: { readonly timers: GuestTimers; readonly dynamicImport: unknown },
): unknown {
  if (typeof source !== 'string') throw new TypeError('evaluateIsolated: source must be a string');
  const compartment = new Compartment({ __options__: true, name: 'rlm-isolated' });
  const global = compartment.globalThis as Record<PropertyKey, unknown>;
  givePowers(global, powers.timers);
  const isolatedEval = makeEval(compartment, () => lexicals);
  const lexicals: object = Object.freeze({
    [evalName]: isolatedEval,
    [importName]: powers.dynamicImport,
    [regExpName]: global.RegExp,
  });
  installEvaluators(global, isolatedEval);
  if (typeof globals === 'object' && globals !== null) {
    for (const name of Object.keys(globals)) {
      const value = (globals as Record<string, unknown>)[name];
      Object.defineProperty(global, name, { value, writable: false, configurable: false });
    }
  }
  return compartment.evaluate(rewriteEvalCode(source), { __moduleShimLexicals__: lexicals });
}
