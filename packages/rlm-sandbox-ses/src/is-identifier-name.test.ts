import { describe, expect, test } from 'vitest';
import { isIdentifierName } from './is-identifier-name.js';

describe('isIdentifierName', () => {
  test('accepts names strict code can declare', () => {
    for (const name of ['context', 'context_0', '$value', '_private', 'ünïcode', 'x1']) {
      expect(isIdentifierName(name)).toBe(true);
    }
  });

  test('rejects keywords, non-identifiers and reserved names', () => {
    for (const name of ['let', 'class', 'eval', 'arguments', '1x', 'a-b', '', 'a b', '__rlm_x']) {
      expect(isIdentifierName(name)).toBe(false);
    }
  });
});
