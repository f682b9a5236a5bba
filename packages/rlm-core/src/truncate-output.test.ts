import { describe, expect, test } from 'vitest';
import { truncateOutput } from './truncate-output.js';

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
