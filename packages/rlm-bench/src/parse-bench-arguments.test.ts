import { expect, test } from 'vitest';
import { parseBenchArguments } from './parse-bench-arguments.js';

const names = ['checkpoint-cli', 'prompt'];
const parts = ['long-run', 'resume'];

test('--part runs named parts of the benchmarks that declare them', () => {
  const parsed = parseBenchArguments(
    ['--only', 'checkpoint-cli', '--part', 'long-run', '--part', 'resume', '--runs', '2'],
    names,
    parts,
  );
  expect(parsed).toEqual({
    quick: false,
    only: ['checkpoint-cli'],
    parts: ['long-run', 'resume'],
    runs: 2,
    help: false,
  });
  expect(parseBenchArguments([], names, parts).parts).toEqual([]);
});

test('an unknown part or a missing value is refused, naming what is allowed', () => {
  expect(() => parseBenchArguments(['--part', 'long'], names, parts)).toThrow(
    'unknown part "long"; one of: long-run, resume',
  );
  expect(() => parseBenchArguments(['--part'], names, parts)).toThrow('--part needs a value');
});
