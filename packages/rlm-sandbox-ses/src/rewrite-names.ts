/** Names the REPL rewrite and the worker's runtime agree on, and the rewrite's contract types. */
import type { DeclarationKind } from '@rlm/repl-transform';
import { reservedPrefix } from './is-identifier-name.js';

/** The lexical the runtime provides to REPL code: cells, checks, the global object. */
export const kitName = reservedPrefix;
/** The lexical naming the compartment's evaluator (what `eval` means in guest code). */
export const evalName = '__rlm_eval';
/** The lexical that a dynamic `import(...)` is rewritten to call. */
export const importName = '__rlm_import';
/** The lexical naming `RegExp`, for regular expression literals rebuilt from strings. */
export const regExpName = '__rlm_RegExp';
/** The source URL of REPL code, which tells its stack frames apart. */
export const replSourceUrl = 'rlm-repl';
/** The name of the function that wraps REPL code, which stack frames show. */
export const wrapperName = `${reservedPrefix}_main`;

/** Block-local constants that hold a persisted variable's cell start with this. */
export const cellPrefix = `${reservedPrefix}_c_`;

/**
 * What a name already means when an execution starts:
 * - `let` / `const`: a persisted variable (a cell),
 * - `protected`: a host function, `print`, `console` or a read-only variable (a cell that guest
 *   code cannot write),
 * - `global`: an own data property of the compartment's global object (`Math`, `JSON`, ...),
 *   bound to a block-local constant when the code never assigns it,
 * - `builtin`: a non-configurable global (`undefined`, `NaN`, `Infinity`), which cannot be
 *   redeclared.
 */
export type NameKind = 'let' | 'const' | 'protected' | 'global' | 'builtin';

/** The names an execution can see. */
export interface ReplScope {
  kindOf(name: string): NameKind | undefined;
  /**
   * True when a function made by an earlier execution may use the variable (it named it, or
   * it used `eval`, `Function` or `globalThis`): the variable must then stay in its cell.
   */
  isCaptured(name: string): boolean;
}

export type { DeclarationKind } from '@rlm/repl-transform';

export interface ReplRewrite {
  /** Persisted variables that functions made by this code name. */
  readonly captured: ReadonlySet<string>;
  /** Whether functions made by this code use `eval`, `Function` or `globalThis`. */
  readonly capturesDynamically: boolean;
  /**
   * The code to evaluate: an async function, called, that resolves to `{ v }` (the value of a
   * last expression statement) or `undefined`. Lines are kept: the prologue shares line 1.
   */
  readonly source: string;
  /** Top-level names the code declares, which become persisted variables. */
  readonly declarations: ReadonlyMap<string, DeclarationKind>;
  /** Persisted variables and protected names the code names (in functions too). */
  readonly names: ReadonlySet<string>;
  /** Whether the code reaches variables without naming them (`eval`, `Function`, `globalThis`, top-level `this`). */
  readonly reachesDynamically: boolean;
}
