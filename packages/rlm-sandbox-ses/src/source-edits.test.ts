import { describe, expect, test } from 'vitest';
import { SourceEdits } from './source-edits.js';

describe('SourceEdits', () => {
  test('applies replacements and insertions in source order', () => {
    const edits = new SourceEdits();
    edits.replace(4, 5, 'y');
    edits.insert(0, '(');
    edits.insert(9, ')');
    edits.insert(4, '[');
    edits.insert(4, '<');
    expect(edits.apply('let x = 1')).toBe('(let [<y = 1)');
  });

  test('rejects overlapping edits', () => {
    const edits = new SourceEdits();
    edits.replace(0, 5, 'a');
    edits.replace(3, 6, 'b');
    expect(() => edits.apply('0123456789')).toThrow(/overlapping/);
  });
});
