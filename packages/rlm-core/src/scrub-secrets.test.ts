import { expect, test } from 'vitest';
import { scrubSecrets } from './scrub-secrets.js';

test('every occurrence of a key is redacted; placeholders and missing keys are left alone', () => {
  const key = 'sk-ant-abcdef123456';
  expect(scrubSecrets(`key ${key} and again ${key}, max x`, [key, 'x', undefined, null])).toBe(
    'key [redacted] and again [redacted], max x',
  );
});
