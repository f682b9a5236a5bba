import { RlmError } from '@rlm/core';
import { describe, expect, test } from 'vitest';
import { assertToolName, isToolName } from './assert-tool-name.js';
import { InvalidToolNameError } from './errors/invalid-tool-name-error.js';

describe('tool names', () => {
  test.each(['csv_parser', '_private', 'A', 'parse2', 'x'.repeat(64)])('accepts %s', (name) => {
    expect(isToolName(name)).toBe(true);
    expect(() => assertToolName('role', name)).not.toThrow();
  });

  test.each([
    '',
    '2fast',
    'csv-parser',
    'a.b',
    '../etc',
    'a/b',
    'a\\b',
    ' padded',
    'x'.repeat(65),
    'con',
    'NUL',
    'Com1',
    'lpt9',
  ])('rejects %j', (name) => {
    expect(isToolName(name)).toBe(false);
  });

  test('rejects non-strings', () => {
    expect(isToolName(42)).toBe(false);
    expect(isToolName(undefined)).toBe(false);
  });

  test('throws a typed error that says what is allowed', () => {
    let caught: unknown;
    try {
      assertToolName('method', '../../escape');
    } catch (error) {
      caught = error;
    }
    expect(InvalidToolNameError.isInstance(caught)).toBe(true);
    expect(RlmError.isInstance(caught)).toBe(true);
    const error = caught as InvalidToolNameError;
    expect(error.kind).toBe('method');
    expect(error.value).toBe('../../escape');
    expect(error.message).toMatch(
      /^@rlm\/toolstore: invalid method name "..\/..\/escape"; use a letter/,
    );
    expect(InvalidToolNameError.isInstance(new Error('x'))).toBe(false);
  });
});
