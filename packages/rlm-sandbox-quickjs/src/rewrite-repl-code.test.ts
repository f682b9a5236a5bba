import { describe, expect, test } from 'vitest';
import { rewriteReplCode } from './rewrite-repl-code.js';

describe('rewriteReplCode', () => {
  test('top-level declarations of every kind become globals', () => {
    const { globals } = rewriteReplCode(
      'const a = 1; let b; var c = 3; function f() {} class K {} const { d, e: [g], ...rest } = x;',
    );
    expect([...globals].sort()).toEqual(['a', 'b', 'c', 'd', 'f', 'g', 'K', 'rest'].sort());
  });

  test('plain assignments outside functions create globals unless a block declares the name', () => {
    const { globals } = rewriteReplCode(`
      total = 1;
      [low, { high }] = [1, { high: 2 }];
      for (item of []) {}
      if (true) { nested = 1; }
      { let shadowed; shadowed = 2; }
      try {} catch (caught) { caught = 3; }
      (() => { inFunction = 1; })();
      counter += 1;
      object.property = 1;
    `);
    expect([...globals].sort()).toEqual(['high', 'item', 'low', 'nested', 'total']);
  });

  test('var in blocks outside functions persists too; var without a value keeps the old one', () => {
    const { globals, source } = rewriteReplCode(
      'var kept;\nif (true) { var inBlock = 1; }\nfor (var i = 0; i < 2; i++) {}\nfor (var key in {}) {}\nfunction f() { var local = 1; }',
    );
    expect([...globals].sort()).toEqual(['f', 'i', 'inBlock', 'kept', 'key']);
    expect(source).not.toContain('kept = undefined');
    expect(source).toContain('for (i = (0); i < 2; i++)');
    expect(source).toContain('for (key in {})');
    expect(source).toContain('var local = 1');
  });

  test('the last expression statement becomes the resolved value, in a null-prototype box', () => {
    const { source } = rewriteReplCode('const x = 1;\nx + 1');
    expect(source).toContain('return { __proto__: null, v: (x + 1) };');
    expect(rewriteReplCode('const x = 1;').source).not.toContain('return');
  });

  test('the code runs in a strict async function and keeps its line numbers', () => {
    const { source } = rewriteReplCode('await 1;\nthrow new Error("line 2")');
    expect(source.startsWith("(async function () { 'use strict';")).toBe(true);
    expect(source.split('\n')[1]).toContain('line 2');
  });

  test('code that does not parse throws a SyntaxError', () => {
    expect(() => rewriteReplCode('let = ;')).toThrow(SyntaxError);
  });
});
