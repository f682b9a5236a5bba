import { parse } from 'acorn';
import { describe, expect, it } from 'vitest';
import { topLevelDeclarations } from './top-level-declarations.js';
import { assignedUndeclaredNames } from './undeclared-assignments.js';

const program = (code: string) => parse(code, { ecmaVersion: 'latest', sourceType: 'module' });

describe('topLevelDeclarations', () => {
  it('gives each name its first declaration, var names last and from any block', () => {
    const declarations = topLevelDeclarations(
      program(
        'for (var i of []) {}\nlet [a, { b = 1 }] = []\nfunction f() { var inner }\nclass C {}',
      ),
    );
    expect(Object.fromEntries(declarations)).toEqual({
      a: { kind: 'let', start: 25 },
      b: { kind: 'let', start: 25 },
      f: { kind: 'function', start: 45 },
      C: { kind: 'class', start: 72 },
      i: { kind: 'var', start: 0 },
    });
  });

  it('leaves names declared in functions, blocks and catch clauses out', () => {
    const declarations = topLevelDeclarations(
      program('{ let x } try {} catch (e) { const y = 1 } (() => { var z })()'),
    );
    expect([...declarations.keys()]).toEqual([]);
  });
});

describe('assignedUndeclaredNames', () => {
  it('skips assignments in functions and to names a block around them declares', () => {
    const names = assignedUndeclaredNames(
      program(
        'a = 1; [b, { c }] = [1, {}]; x.y = 2; d += 1\n' +
          'function f() { e = 1 } { let g; g = 1 } try {} catch (h) { h = 1 }\n' +
          'for (const i of []) { i2 = i }',
      ),
    );
    expect([...names].sort()).toEqual(['a', 'b', 'c', 'i2']);
  });
});
