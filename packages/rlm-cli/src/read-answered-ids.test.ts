import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { readAnsweredIds } from './read-answered-ids.js';
import { useTemporaryDirectory } from './test-support/use-temporary-directory.js';

const { root } = useTemporaryDirectory('rlm-answered-');

describe('readAnsweredIds', () => {
  test('a missing file has no answered ids', async () => {
    expect(await readAnsweredIds(path.join(root, 'missing.jsonl'))).toEqual({
      keys: new Set(),
      endsMidLine: false,
    });
  });

  test('answers count, errors and a line cut short by a kill do not', async () => {
    const file = path.join(root, 'results.jsonl');
    await writeFile(
      file,
      [
        '{"id":1,"answer":"one","durationMs":3}',
        '{"id":"2","answer":null}',
        '{"id":3,"error":{"name":"ModelCallError","message":"x"}}',
        '{"id":4,"answ',
      ].join('\n'),
    );
    const answered = await readAnsweredIds(file);
    expect([...answered.keys].sort()).toEqual(['"2"', '1']);
    expect(answered.endsMidLine).toBe(true);
  });
});
