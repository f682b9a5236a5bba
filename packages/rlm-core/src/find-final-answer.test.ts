import { describe, expect, test } from 'vitest';
import { findFinalAnswer } from './find-final-answer.js';

describe('findFinalAnswer', () => {
  test('finds FINAL at the start of a line', () => {
    expect(findFinalAnswer('Done.\nFINAL(The answer is 42)')).toEqual({
      kind: 'final',
      answer: 'The answer is 42',
    });
  });

  test('ignores FINAL in the middle of a sentence', () => {
    expect(findFinalAnswer('I will call FINAL(x) later, once I know more.')).toBeUndefined();
  });

  test('needs balanced parentheses, possibly across lines', () => {
    expect(findFinalAnswer('FINAL(f(x) = (a + b)')).toBeUndefined();
    expect(findFinalAnswer('FINAL(first line\nsecond (with parens))\ntrailing')).toEqual({
      kind: 'final',
      answer: 'first line\nsecond (with parens)',
    });
  });

  test('apostrophes in prose do not count as quotes', () => {
    expect(findFinalAnswer("FINAL(It's Bob's car)")).toEqual({
      kind: 'final',
      answer: "It's Bob's car",
    });
  });

  test('a quoted argument is one string literal, decoded', () => {
    expect(findFinalAnswer('FINAL("a ) inside\\n and a quote \\"")')).toEqual({
      kind: 'final',
      answer: 'a ) inside\n and a quote "',
    });
  });

  test('FINAL_VAR takes a variable name, quoted or not', () => {
    expect(findFinalAnswer('FINAL_VAR(report)')).toEqual({ kind: 'final-var', variable: 'report' });
    expect(findFinalAnswer("  FINAL_VAR('report')")).toEqual({
      kind: 'final-var',
      variable: 'report',
    });
    expect(findFinalAnswer('FINAL_VAR(not a name)')).toBeUndefined();
  });

  test('the first valid marker wins', () => {
    expect(findFinalAnswer('FINAL(unclosed\nFINAL_VAR(x)')).toEqual({
      kind: 'final-var',
      variable: 'x',
    });
  });
});
