import { describe, expect, test } from 'vitest';
import { buildServedContext } from './served-context.js';

const none = { messages: [], inline: undefined, files: [] };

describe('buildServedContext', () => {
  test('nothing given: no context', () => {
    expect(buildServedContext(none)).toBeUndefined();
  });

  test('only earlier messages: the conversation as an array', () => {
    expect(
      buildServedContext({
        ...none,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Here is the log.', name: 'ops' },
        ],
      }),
    ).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Here is the log.', name: 'ops' },
    ]);
  });

  test('only an inline value: it as is, whatever its type', () => {
    expect(buildServedContext({ ...none, inline: 'a long text' })).toBe('a long text');
    expect(buildServedContext({ ...none, inline: { rows: [1, 2] } })).toEqual({ rows: [1, 2] });
    expect(buildServedContext({ ...none, inline: null })).toBeNull();
  });

  test('only files: one file is its value, several an object by name', () => {
    expect(buildServedContext({ ...none, files: [{ name: 'a.txt', value: 'A' }] })).toBe('A');
    expect(
      buildServedContext({
        ...none,
        files: [
          { name: 'a.txt', value: 'A' },
          { name: 'b.json', value: { b: 1 } },
          { name: 'a.txt', value: 'A again' },
        ],
      }),
    ).toEqual({ 'a.txt': 'A', 'b.json': { b: 1 }, 'a.txt (2)': 'A again' });
  });

  test('several sources: an object with a key for each', () => {
    const context = buildServedContext({
      messages: [{ role: 'user', content: 'earlier' }],
      inline: 'inline text',
      files: [{ name: 'notes.md', value: '# Notes' }],
    });
    expect(context).toEqual({
      messages: [{ role: 'user', content: 'earlier' }],
      context: 'inline text',
      files: { 'notes.md': '# Notes' },
    });
    expect(Object.keys(context as object)).toEqual(['messages', 'context', 'files']);
  });
});
