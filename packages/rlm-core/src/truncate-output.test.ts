import { describe, expect, test } from 'vitest';
import { redactedOutput, redactLargeOutput, truncateOutput } from './truncate-output.js';

describe('truncateOutput', () => {
  test('keeps short output as it is', () => {
    expect(truncateOutput('hello', 10)).toBe('hello');
  });

  test('keeps head and tail and states the true length', () => {
    const output = `${'a'.repeat(50)}${'b'.repeat(50)}`;
    const shown = truncateOutput(output, 20);
    expect(shown.startsWith('a'.repeat(10))).toBe(true);
    expect(shown.endsWith('b'.repeat(10))).toBe(true);
    expect(shown).toContain('80 characters omitted');
    expect(shown).toContain('the output was 100 characters');
  });

  test('is stable: the same input gives the same output', () => {
    const output = 'x'.repeat(1_000);
    expect(truncateOutput(output, 100)).toBe(truncateOutput(output, 100));
  });
});

describe('redactLargeOutput', () => {
  const settings = { contextLength: 10_000, ratio: 0.25, minChars: 100 };

  test('redacts an output larger than the ratio of the context', () => {
    expect(redactLargeOutput('x'.repeat(2_600), settings)).toBe(redactedOutput);
  });

  test('keeps outputs under the ratio', () => {
    expect(redactLargeOutput('x'.repeat(2_400), settings)).toBe('x'.repeat(2_400));
  });

  test('never redacts small outputs, even over a tiny context', () => {
    expect(redactLargeOutput('x'.repeat(99), { ...settings, contextLength: 10 })).toBe(
      'x'.repeat(99),
    );
  });
});
