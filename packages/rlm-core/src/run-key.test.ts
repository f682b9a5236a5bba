import { describe, expect, test } from 'vitest';
import { hashContext } from './hash-context.js';
import { runKey } from './run-key.js';

describe('runKey', () => {
  test('without a namespace, the key is the one earlier versions stored checkpoints under', () => {
    // Pinned from the derivation before namespaces existed: stores written then keep resuming.
    expect(runKey('q', hashContext('c'))).toBe('a3512e5f8ead5c4d4626c22df8c13991');
    expect(runKey('q', hashContext('c'), undefined)).toBe('a3512e5f8ead5c4d4626c22df8c13991');
  });

  test('each namespace gives the same query and context a key of its own', () => {
    const context = hashContext('c');
    const keys = new Set([
      runKey('q', context),
      runKey('q', context, 'eval:a'),
      runKey('q', context, 'eval:b'),
      runKey('q', context, 'eval:a '),
    ]);
    expect(keys.size).toBe(4);
    expect(runKey('q', context, 'eval:a')).toBe(runKey('q', context, 'eval:a'));
    expect(runKey('q', context, 'eval:a')).toMatch(/^[0-9a-f]{32}$/);
  });

  test('separators in a namespace, a query or a hash cannot make two runs collide', () => {
    const hash = hashContext('c');
    expect(runKey('q', hash, 'a:b')).not.toBe(runKey('b:q', hash, 'a'));
    expect(runKey('q', hash, '","')).not.toBe(runKey('q","', hash));
    expect(runKey('q', 'h', 'n')).not.toBe(runKey('q', 'n', 'h'));
  });
});
