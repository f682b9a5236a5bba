import { beforeAll, expect, test } from 'vitest';
import { loadAcorn } from './load-acorn.js';
import { ReplRewriteCache } from './repl-rewrite-cache.js';
import { type NameKind, type ReplScope, rewriteReplCode } from './rewrite-code.js';

beforeAll(async () => {
  await loadAcorn();
});

function makeScope(): { scope: ReplScope; kinds: Map<string, NameKind>; captured: Set<string> } {
  const kinds = new Map<string, NameKind>([['print', 'protected']]);
  const captured = new Set<string>();
  return {
    kinds,
    captured,
    scope: { kindOf: (name) => kinds.get(name), isCaptured: (name) => captured.has(name) },
  };
}

test('the same code in an unchanged scope reuses its rewrite, which equals a fresh one', () => {
  const { scope } = makeScope();
  const cache = new ReplRewriteCache();
  const first = cache.rewrite('print(1)', scope);
  expect(cache.rewrite('print(1)', scope)).toBe(first);
  expect(first).toEqual(rewriteReplCode('print(1)', scope));
});

test('code rewrites again once a name it uses is declared, or named by a function', () => {
  const { scope, kinds, captured } = makeScope();
  const cache = new ReplRewriteCache();
  const code = 'let total = 0; for (let i = 0; i < 3; i++) total += count; print(total)';
  const undeclared = cache.rewrite(code, scope);
  expect(undeclared.source).not.toContain('count.v');
  kinds.set('count', 'let');
  const declared = cache.rewrite(code, scope);
  expect(declared).not.toBe(undeclared);
  expect(declared).toEqual(rewriteReplCode(code, scope));
  expect(cache.rewrite(code, scope)).toBe(declared);
  // A persisted variable a function names stays in its cell: `count` is no longer localized.
  captured.add('count');
  const kept = cache.rewrite(code, scope);
  expect(kept).not.toBe(declared);
  expect(kept.source).not.toEqual(declared.source);
  expect(kept).toEqual(rewriteReplCode(code, scope));
});

test('code that does not parse is not kept: it fails each time', () => {
  const { scope } = makeScope();
  const cache = new ReplRewriteCache();
  expect(() => cache.rewrite('let = ;', scope)).toThrow(SyntaxError);
  expect(() => cache.rewrite('let = ;', scope)).toThrow(SyntaxError);
});

test('the cache keeps the most recently used blocks, each still right', () => {
  const { scope } = makeScope();
  const cache = new ReplRewriteCache();
  const kept = cache.rewrite('print(0)', scope);
  for (let index = 1; index < 40; index++) {
    cache.rewrite(`print(${index})`, scope);
    // Used again each time: it stays.
    expect(cache.rewrite('print(0)', scope)).toBe(kept);
  }
  const evicted = cache.rewrite('print(1)', scope);
  expect(evicted).toEqual(rewriteReplCode('print(1)', scope));
  expect(cache.rewrite('print(1)', scope)).toBe(evicted);
});
