import { expect, test } from 'vitest';
import { formatSkippedBinaryFiles } from './format-skipped-binary-files.js';

test('one line: the count, up to three paths, the flag', () => {
  expect(formatSkippedBinaryFiles(['docs/logo.png'])).toBe(
    'rlm: skipped 1 binary file (not UTF-8 text): docs/logo.png; --strict makes this an error\n',
  );
  expect(formatSkippedBinaryFiles(['a.png', 'b.pdf', 'c.zip', 'd.bin', 'e.bin'])).toBe(
    'rlm: skipped 5 binary files (not UTF-8 text): a.png, b.pdf, c.zip and 2 more; --strict makes this an error\n',
  );
});
