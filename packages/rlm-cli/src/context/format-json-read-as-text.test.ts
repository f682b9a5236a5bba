import { describe, expect, test } from 'vitest';
import { formatJsonReadAsText } from './format-json-read-as-text.js';

describe('formatJsonReadAsText', () => {
  test('one line: the count, the first files with where they stop parsing, the flag', () => {
    expect(formatJsonReadAsText([])).toBe('');
    expect(
      formatJsonReadAsText([
        { path: 'app/tsconfig.json', problem: 'line 2, column 3: unexpected "/"' },
      ]),
    ).toBe(
      'rlm: read 1 .json file as text, it is not valid JSON: app/tsconfig.json (line 2, column 3: unexpected "/"); --strict makes this an error\n',
    );
    const files = ['a', 'b', 'c', 'd', 'e'].map((name) => ({
      path: `${name}.json`,
      problem: 'unexpected\nend',
    }));
    expect(formatJsonReadAsText(files)).toBe(
      'rlm: read 5 .json files as text, they are not valid JSON: a.json (unexpected end), b.json (unexpected end), c.json (unexpected end) and 2 more; --strict makes this an error\n',
    );
  });
});
