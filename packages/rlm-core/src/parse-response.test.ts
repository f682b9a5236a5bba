import { describe, expect, test } from 'vitest';
import { parseResponse } from './parse-response.js';

describe('parseResponse', () => {
  test('returns only runnable fences, in order', () => {
    const text = [
      'Let me look.',
      '```repl',
      'const a = 1;',
      '```',
      '```python',
      'print(2)',
      '```',
      '```REPL',
      'print(a)',
      '```',
    ].join('\n');
    const parsed = parseResponse(text, ['repl']);
    expect(parsed.codeBlocks.map((block) => block.code)).toEqual(['const a = 1;', 'print(a)']);
    expect(parsed.prose).toBe('Let me look.');
  });

  test('accepts js fences when configured, and removes every fence from the prose', () => {
    const text = 'a\n```js\nx()\n```\nb\n```ts\ny()\n```\nc';
    const parsed = parseResponse(text, ['repl', 'js']);
    expect(parsed.codeBlocks).toEqual([{ language: 'js', code: 'x()', closed: true }]);
    expect(parsed.prose).toBe('a\nb\nc');
  });

  test('keeps shorter fences inside a longer one and runs an unclosed fence to the end', () => {
    const text = '````repl\nconst s = "```";\n```\n````\n```repl\nopen()';
    const parsed = parseResponse(text, ['repl']);
    expect(parsed.codeBlocks.map((block) => block.code)).toEqual([
      'const s = "```";\n```',
      'open()',
    ]);
    expect(parsed.codeBlocks.map((block) => block.closed)).toEqual([true, false]);
  });

  test('a response without fences is all prose', () => {
    expect(parseResponse('FINAL(42)', ['repl'])).toEqual({ codeBlocks: [], prose: 'FINAL(42)' });
  });
});
