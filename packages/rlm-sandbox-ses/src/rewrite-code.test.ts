import { beforeAll, describe, expect, test } from 'vitest';
import { loadAcorn } from './load-acorn.js';
import { type NameKind, rewriteEvalCode, rewriteReplCode } from './rewrite-code.js';

beforeAll(() => loadAcorn());

const sesRejects = [
  /<!--|-->/,
  /(^|[^.]|\.\.\.)\bimport(\s*(?:\(|\/[/*]))/,
  /(^|[^.])\beval(\s*\()/,
];

function evaluateScript(code: string): unknown {
  const source = rewriteEvalCode(code);
  for (const pattern of sesRejects) expect(source).not.toMatch(pattern);
  return new Function(
    '__rlm_eval',
    '__rlm_import',
    '__rlm_RegExp',
    `'use strict'; return eval(${JSON.stringify(source)})`,
  )(evaluateScript, rejectImport, RegExp);
}

function rejectImport(): Promise<never> {
  return Promise.reject(new Error('import() is not available'));
}

/**
 * A stand-in for the worker runtime: cells, a global object with accessors for them, and the
 * kit the rewritten code calls. It runs rewritten code with `new Function`, without SES.
 */
function makeRepl(protectedValues: Record<string, unknown> = {}) {
  const cells = new Map<string, { v: unknown }>();
  const kinds = new Map<string, NameKind>();
  const globalObject: Record<string, unknown> = { Math, JSON, Promise, Error, String, undefined };
  globalObject.globalThis = globalObject;
  const cell = (name: string) => {
    let existing = cells.get(name);
    if (!existing) {
      const created = { v: undefined as unknown };
      existing = created;
      cells.set(name, created);
      Object.defineProperty(globalObject, name, {
        get: () => created.v,
        set: (value) => {
          created.v = value;
        },
        enumerable: true,
      });
    }
    return existing;
  };
  for (const [name, value] of Object.entries(protectedValues)) {
    cell(name).v = value;
    kinds.set(name, 'protected');
  }
  const kit = {
    cell,
    constant(name: string): never {
      throw new TypeError(`Assignment to constant variable ${name}.`);
    },
    readOnly(name: string): never {
      throw new TypeError(`${name} is read-only`);
    },
    ref(name: string): unknown {
      if (name in globalObject) return globalObject[name];
      throw new ReferenceError(`${name} is not defined`);
    },
    g: globalObject,
  };
  const captured = new Set<string>();
  let capturesDynamically = false;
  const scope = {
    isCaptured: (name: string) => capturesDynamically || captured.has(name),
    kindOf(name: string): NameKind | undefined {
      const kind = kinds.get(name);
      if (kind) return kind;
      if (!Object.hasOwn(globalObject, name)) return undefined;
      return name === 'undefined' ? 'builtin' : 'global';
    },
  };
  return {
    cells,
    rewrite: (code: string) => rewriteReplCode(code, scope),
    async run(code: string): Promise<unknown> {
      const rewrite = rewriteReplCode(code, scope);
      const { source, declarations } = rewrite;
      for (const name of rewrite.captured) captured.add(name);
      if (rewrite.capturesDynamically) capturesDynamically = true;
      for (const pattern of sesRejects) expect(source).not.toMatch(pattern);
      for (const [name, kind] of declarations) {
        kinds.set(name, kind === 'const' ? 'const' : 'let');
        cell(name);
      }
      const run = new Function(
        '__rlm',
        '__rlm_eval',
        '__rlm_import',
        '__rlm_RegExp',
        `'use strict'; return ${source}`,
      );
      const result = await run.call(globalObject, kit, evaluateScript, rejectImport, RegExp);
      return result === undefined ? undefined : (result as { v: unknown }).v;
    },
  };
}

describe('rewriteReplCode: persistence', () => {
  test('top-level declarations and destructuring persist across runs', async () => {
    const repl = makeRepl();
    await repl.run(`
      const a = 1;
      let b = 2;
      var c = 3;
      function add(x, y) { return x + y }
      class Box { constructor(v) { this.v = v } }
      const { d, e: [f], ...rest } = { d: 4, e: [5], g: 6 };
      let [h = 7, , i] = [undefined, 0, 8];
    `);
    expect(await repl.run('add(a, b) + c + d + f + rest.g + h + i + new Box(1).v')).toBe(37);
  });

  test('top-level await persists its results', async () => {
    const repl = makeRepl();
    await repl.run('const value = await Promise.resolve(42)');
    expect(await repl.run('value')).toBe(42);
  });

  test('closures see later reassignments, REPL style', async () => {
    const repl = makeRepl();
    await repl.run('let count = 0; function bump() { count++; return count }');
    expect(await repl.run('bump(); bump(); count')).toBe(2);
    expect(await repl.run('count = 10; bump()')).toBe(11);
    await repl.run('let count = 100');
    expect(await repl.run('bump()')).toBe(101);
  });

  test('functions are hoisted within a run and late-bound across runs', async () => {
    const repl = makeRepl();
    expect(await repl.run('early(); function early() { return "hoisted" }')).toBeUndefined();
    await repl.run('function useLater() { return later * 2 }');
    expect(await repl.run('const later = 21; useLater()')).toBe(42);
  });

  test('const cannot be reassigned but can be redeclared', async () => {
    const repl = makeRepl();
    await repl.run('const k = 1');
    await expect(repl.run('k = 2')).rejects.toThrow(TypeError);
    await expect(repl.run('k++')).rejects.toThrow(TypeError);
    await expect(repl.run('[k] = [3]')).rejects.toThrow(TypeError);
    await expect(repl.run('const j = 1; j = 2')).rejects.toThrow(TypeError);
    expect(await repl.run('const k = 3; k')).toBe(3);
    expect(await repl.run('let k = 4; k = 5; k')).toBe(5);
  });

  test('var without initializer keeps the value', async () => {
    const repl = makeRepl();
    await repl.run('var x = 5');
    expect(await repl.run('var x; x')).toBe(5);
    expect(await repl.run('var x, y = 2; x + y')).toBe(7);
  });

  test('loops and blocks: var persists, block-scoped names do not', async () => {
    const repl = makeRepl();
    await repl.run('for (var i = 0; i < 3; i++) {}');
    expect(await repl.run('i')).toBe(3);
    await repl.run('for (var key in { only: 1 }) {}');
    expect(await repl.run('key')).toBe('only');
    await repl.run('for (var [first] of [[9]]) {}');
    expect(await repl.run('first')).toBe(9);
    await repl.run('if (true) { var nested = 5 }');
    expect(await repl.run('nested')).toBe(5);
    await repl.run(
      '{ let inner = 1 } for (const item of [1]) {} try { throw 1 } catch (caught) {}',
    );
    expect(await repl.run('[typeof inner, typeof item, typeof caught]')).toEqual([
      'undefined',
      'undefined',
      'undefined',
    ]);
  });

  test('shorthand properties and patterns keep their keys', async () => {
    const repl = makeRepl();
    await repl.run('const a = 1; let b = 2');
    expect(await repl.run('({ a, b })')).toEqual({ a: 1, b: 2 });
    expect(await repl.run('const { c = 3, a: renamed } = { a: 4 }; [c, renamed]')).toEqual([3, 4]);
    expect(
      await repl.run('let p = 1, q = 2; [p, q] = [q, p]; ({ p, q } = { p: p * 10, q }); [p, q]'),
    ).toEqual([20, 1]);
  });

  test('calling a persisted function passes no receiver', async () => {
    const repl = makeRepl();
    await repl.run('function receiver() { return this }');
    expect(await repl.run('receiver()')).toBeUndefined();
    expect(await repl.run('receiver?.()')).toBeUndefined();
  });

  test('a declaration after an unterminated line does not join it', async () => {
    const repl = makeRepl();
    expect(
      await repl.run('let log = []\nlog.push(1)\nlet [a] = [2]\n;({ b: log } = { b: 3 })\na + log'),
    ).toBe(5);
  });
});

describe('rewriteReplCode: block-local bindings', () => {
  test('variables only this code uses live in locals while it runs and are written back', async () => {
    const repl = makeRepl();
    const { source } = repl.rewrite('let total = 0; for (let i = 0; i < 10; i++) total += i / 2;');
    expect(source).toContain('let total = __rlm_c_total.v; try {');
    expect(source).toContain('} finally { __rlm_c_total.v = total; }');
    await repl.run('let total = 0; for (let i = 0; i < 10; i++) total += i / 2;');
    expect(await repl.run('total')).toBe(22.5);
    await expect(repl.run('total = 1; throw new Error("late")')).rejects.toThrow('late');
    expect(await repl.run('total')).toBe(1);
  });

  test('variables a function names stay in cells, in this run and later ones', async () => {
    const repl = makeRepl();
    expect(repl.rewrite('let a = 1; const read = () => a; a = 2').source).not.toContain('let a =');
    await repl.run('let counter = 0; function bump() { return ++counter }');
    expect(repl.rewrite('counter = 10; bump()').source).not.toContain('let counter =');
    expect(await repl.run('counter = 10; bump(); counter')).toBe(11);
    await repl.run('function readLater() { return laterValue }');
    expect(await repl.run('let laterValue = 1; laterValue = 2; readLater()')).toBe(2);
  });

  test('code that awaits or reaches variables dynamically uses cells', async () => {
    const repl = makeRepl();
    for (const code of [
      'let x = 1; await null; x',
      'let x = 1; for await (const item of []) {} x',
      'let x = 1; eval("x")',
      'let x = 1; globalThis.x',
      'let x = 1; this.x',
      'let x = 1; (() => this)()',
    ]) {
      expect(repl.rewrite(code).source).not.toContain('let x =');
    }
    expect(await repl.run('let seen = 1; seen = 2; globalThis.seen * 2')).toBe(4);
  });

  test('a function that reaches variables dynamically keeps all variables in cells', async () => {
    const repl = makeRepl();
    await repl.run('function peek(name) { return globalThis[name] }');
    expect(repl.rewrite('let p = 1').source).not.toContain('let p =');
    expect(await repl.run('let p = 1; p = 5; peek("p")')).toBe(5);
  });
});

describe('rewriteReplCode: results, names and errors', () => {
  test('returns the value of the last expression only', async () => {
    const repl = makeRepl();
    expect(await repl.run('1 + 1')).toBe(2);
    expect(await repl.run('"just a string"')).toBe('just a string');
    expect(await repl.run('const x = 1')).toBeUndefined();
    expect(await repl.run('x; if (x) { 5 }')).toBeUndefined();
    expect(await repl.run('await Promise.resolve(7)')).toBe(7);
  });

  test('unknown names throw ReferenceError; typeof does not', async () => {
    const repl = makeRepl();
    await expect(repl.run('missing + 1')).rejects.toThrow(ReferenceError);
    await expect(repl.run('missing()')).rejects.toThrow(ReferenceError);
    await expect(repl.run('new Missing()')).rejects.toThrow(ReferenceError);
    expect(await repl.run('typeof missing')).toBe('undefined');
  });

  test('globals read in a run become block-local constants', () => {
    const repl = makeRepl();
    const { source } = repl.rewrite('Math.max(1, 2) + JSON.stringify(1).length');
    expect(source).toContain('JSON = __rlm.g.JSON');
    expect(source).toContain('Math = __rlm.g.Math');
    expect(repl.rewrite('Math = 1; Math.max(1)').source).not.toContain('Math = __rlm.g.Math');
  });

  test('protected names cannot be declared or assigned, only shadowed locally', async () => {
    const repl = makeRepl({ print: (value: unknown) => value, context: 'the context' });
    expect(() => repl.rewrite('const print = 1')).toThrow(/Cannot declare print/);
    expect(() => repl.rewrite('let { context } = {}')).toThrow(/Cannot declare context/);
    expect(() => repl.rewrite('function print() {}')).toThrow(SyntaxError);
    await expect(repl.run('print = null')).rejects.toThrow(/read-only/);
    await expect(repl.run('context += "!"')).rejects.toThrow(/read-only/);
    expect(await repl.run('print(context)')).toBe('the context');
    expect(await repl.run('(function (print) { return print })(3)')).toBe(3);
  });

  test('built-ins and reserved names cannot be declared', () => {
    const repl = makeRepl();
    expect(() => repl.rewrite('let undefined = 1')).toThrow(/built-in undefined/);
    expect(() => repl.rewrite('const __rlm_x = 1')).toThrow(/reserved/);
    expect(() => repl.rewrite('__rlm.g')).toThrow(/reserved/);
    expect(() => repl.rewrite('function f(__rlm_c_a) {}')).toThrow(/reserved/);
  });

  test('syntax errors carry a position', () => {
    const repl = makeRepl();
    expect(() => repl.rewrite('let = ;')).toThrow(SyntaxError);
    expect(() => repl.rewrite('\n\nfoo(')).toThrow(/\(3:4\)/);
    expect(() => repl.rewrite('import fs from "fs"')).toThrow(/import and export/);
    expect(() => repl.rewrite('export const a = 1')).toThrow(/import and export/);
    expect(() => repl.rewrite('import.meta')).toThrow(/import\.meta/);
    expect(() => repl.rewrite('return 1')).toThrow(SyntaxError);
  });

  test('keeps lines: the prologue shares the first line', () => {
    const repl = makeRepl();
    const code = 'let a = 1;\nlet b = a +\n  2;\nb';
    const { source } = repl.rewrite(`${code}; await null`);
    expect(source.split('\n').length).toBe(code.split('\n').length + 3);
    expect(source.split('\n')[0]).toMatch(/; *__rlm_c_a\.v = 1;$/);
  });
});

describe('rewriteReplCode: SES source rules', () => {
  test('strings, templates and regular expressions may contain SES-rejected sequences', async () => {
    const repl = makeRepl();
    const html = await repl.run(`
      const single = '<!-- a --> import(x) eval(y)';
      const double = "<!--" + "-->";
      const template = \`import ( \${1} ) eval\\t( <!-- \${2} -->\`;
      const tagged = String.raw\`a<!--b\`;
      const escaped = '\\\\import(' + '\\-->';
      const pattern = /<!--(import\\()?-->/;
      [single, double, template, tagged, escaped, pattern.test('<!---->'), pattern.source];
    `);
    expect(html).toEqual([
      '<!-- a --> import(x) eval(y)',
      '<!---->',
      'import ( 1 ) eval\t( <!-- 2 -->',
      'a\\x3C!--b',
      '\\import(-->',
      true,
      '<!--(import\\()?-->',
    ]);
  });

  test('comments and operators that spell SES-rejected sequences are neutralized', async () => {
    const repl = makeRepl();
    const value = await repl.run(`
      // a comment with import(x) and <!-- html -->
      /* block eval(x) */
      let n = 3, hits = 0;
      while (n-->0) hits++;
      const compare = 1<!--n;
      [hits, compare]
    `);
    expect(value).toEqual([3, false]);
  });

  test('methods named import and eval still work', async () => {
    const repl = makeRepl();
    expect(
      await repl.run(`
        const api = { import() { return 'i' }, eval() { return 'e' }, get import2() { return 2 } };
        class Loader { static import() { return 's' } }
        api.import() + api.eval() + Loader.import() + api.import2
      `),
    ).toBe('ies2');
  });

  test('a real dynamic import rejects; eval names the sandbox evaluator', async () => {
    const repl = makeRepl();
    await expect(repl.run('await import("node:fs")')).rejects.toThrow(/not available/);
    expect(await repl.run('eval("1 + 2") + (0, eval)("3")')).toBe(6);
    expect(await repl.run('typeof eval')).toBe('function');
  });

  test('rewriteEvalCode applies the same rules to eval and Function sources', () => {
    expect(evaluateScript('"<!--" + `import(` + "eval(x)"')).toBe('<!--import(eval(x)');
    expect(evaluateScript('var n = 2, hits = 0; while (n-->0) hits++; hits')).toBe(2);
    expect(evaluateScript('eval("40 + 2")')).toBe(42);
    expect(() => rewriteEvalCode('__rlm_eval')).toThrow(/reserved/);
  });
});
