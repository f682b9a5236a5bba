import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { BatchResultsFile } from './batch-results-file.js';
import { useTemporaryDirectory } from '../../test-support/use-temporary-directory.js';

const { root } = useTemporaryDirectory('rlm-results-file-');
const stdout = new PassThrough();

describe('BatchResultsFile', () => {
  test('appends whole lines, repairs a torn last line, and reports the ids answered before', async () => {
    const file = path.join(root, 'repair', 'results.jsonl');
    const first = BatchResultsFile.open(file, stdout);
    expect(first.opening).toEqual({
      answered: new Set(),
      removedTornBytes: 0,
      tookOverFrom: undefined,
    });
    first.results.append({ id: 1, answer: 'one' });
    first.results.close();
    // A batch killed mid-write left half a line.
    await writeFile(file, `${await readFile(file, 'utf8')}{"id":2,"answer":"tw`);
    const second = BatchResultsFile.open(file, stdout);
    expect(second.opening.answered).toEqual(new Set(['1']));
    expect(second.opening.removedTornBytes).toBe(Buffer.byteLength('{"id":2,"answer":"tw'));
    second.results.append({ id: 2, answer: 'two' });
    second.results.close();
    expect(await readFile(file, 'utf8')).toBe('{"id":1,"answer":"one"}\n{"id":2,"answer":"two"}\n');
    // A last line whole but for its newline is kept, and the next line goes after it.
    await writeFile(file, '{"id":3,"answer":3}');
    const third = BatchResultsFile.open(file, stdout);
    expect(third.opening.answered).toEqual(new Set(['3']));
    third.results.append({ id: 4, answer: 4 });
    third.results.close();
    expect(await readFile(file, 'utf8')).toBe('{"id":3,"answer":3}\n{"id":4,"answer":4}\n');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  test('one writer per file: a second open is refused, naming the holder; a gone holder is taken over', async () => {
    const file = path.join(root, 'locked.jsonl');
    const held = BatchResultsFile.open(file, stdout);
    expect(() => BatchResultsFile.open(file, stdout)).toThrow(
      new RegExp(
        `^--out ${file.replaceAll('.', '\\.')} is being written by another rlm batch \\(process ${process.pid} on ${hostname()}, since .*\\): wait for it to end or stop it \\(kill ${process.pid}\\), or pass another --out`,
      ),
    );
    held.results.close();
    // A lock left by a process that is gone (this host, its pid no longer runs).
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const pid = Number(gone.stdout);
    await writeFile(
      `${file}.lock`,
      JSON.stringify({ pid, hostname: hostname(), startedAt: 1, token: 'old' }),
    );
    const next = BatchResultsFile.open(file, stdout);
    expect(next.opening.tookOverFrom).toMatchObject({ pid, hostname: hostname() });
    next.results.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  test('a device (/dev/null) is written as it is: no lock beside it, nothing read', () => {
    const { results, opening } = BatchResultsFile.open('/dev/null', stdout);
    expect(opening.answered).toEqual(new Set());
    results.append({ id: 1, answer: 'gone' });
    results.close();
    expect(existsSync('/dev/null.lock')).toBe(false);
  });

  test('without a file, lines go to stdout and nothing is locked', () => {
    const lines: string[] = [];
    const out = new PassThrough().on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    const { results } = BatchResultsFile.open(undefined, out);
    results.append({ id: 'x', answer: 1 });
    results.close();
    expect(lines).toEqual(['{"id":"x","answer":1}\n']);
  });

  test('costs are written without floating-point noise', async () => {
    const file = path.join(root, 'deep', 'costs.jsonl');
    const { results } = BatchResultsFile.open(file, stdout);
    const costUsd = 0.0001 + 0.0002 + 0.001 + 0.0018060000000000001;
    results.append({ id: 1, answer: 'a', usage: { modelCalls: 4, costUsd }, costUsd });
    results.close();
    expect(await readFile(file, 'utf8')).toBe(
      '{"id":1,"answer":"a","usage":{"modelCalls":4,"costUsd":0.003106},"costUsd":0.003106}\n',
    );
  });
});
