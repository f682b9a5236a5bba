import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { BatchResultsFile } from './batch-results-file.js';
import { useTemporaryDirectory } from './test-support/use-temporary-directory.js';

const { root } = useTemporaryDirectory('rlm-cli-results-');

describe('BatchResultsFile', () => {
  test('one JSON line per result, costs without floating-point noise', async () => {
    const file = path.join(root, 'deep', 'results.jsonl');
    const results = BatchResultsFile.open(file, false, new PassThrough());
    const costUsd = 0.0001 + 0.0002 + 0.001 + 0.0018060000000000001;
    results.append({ id: 1, answer: 'a', usage: { modelCalls: 4, costUsd }, costUsd });
    results.close();
    expect(await readFile(file, 'utf8')).toBe(
      '{"id":1,"answer":"a","usage":{"modelCalls":4,"costUsd":0.003106},"costUsd":0.003106}\n',
    );
  });
});
