import { expect, test } from 'vitest';
import { splitFlagWords } from './split-flag-words.js';

test('splits on white space, honours quotes and backslashes', () => {
  expect(splitFlagWords('  --model anthropic:claude-haiku-4-5   --max-iterations 30 ')).toEqual([
    '--model',
    'anthropic:claude-haiku-4-5',
    '--max-iterations',
    '30',
  ]);
  expect(splitFlagWords(`--price "my model=1,2" --x='a b' c\\ d ""`)).toEqual([
    '--price',
    'my model=1,2',
    '--x=a b',
    'c d',
    '',
  ]);
  expect(splitFlagWords('')).toEqual([]);
  expect(() => splitFlagWords('--model "open')).toThrow('have an unclosed "; close it');
});
