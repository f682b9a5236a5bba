import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { AnswerSink, type AnswerSinkOptions } from './answer-sink.js';
import { jsonFailureReport } from '../../output/json-failure-report.js';
import { textCollector } from '../../test-support/text-collector.js';
import { useTemporaryDirectory } from '../../test-support/use-temporary-directory.js';
import { UsageError } from '../../usage-error.js';

const { root } = useTemporaryDirectory('rlm-cli-sink-');

function report(answer: unknown) {
  return {
    answer,
    iterations: 1,
    depthReached: 0,
    usage: {
      inputTokens: 1,
      outputTokens: 1,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      modelCalls: 1,
    },
    callUsage: [],
    durationMs: 5,
  };
}

async function open(options: Partial<AnswerSinkOptions>) {
  const stdout = textCollector();
  const stderr = textCollector();
  const sink = await AnswerSink.open({
    json: false,
    outFile: undefined,
    quiet: false,
    stdout,
    stderr,
    ...options,
  });
  return { sink, stdout, stderr };
}

describe('AnswerSink', () => {
  test('stdout: answers as text; failures print nothing without --json', async () => {
    const { sink, stdout } = await open({});
    await sink.answer(report('four'));
    await sink.answer(report({ n: 4 }));
    await sink.failure(jsonFailureReport(new Error('boom')));
    expect(stdout.text).toBe('four\n{\n  "n": 4\n}\n');
  });

  test('--json: one line per query, failures included', async () => {
    const { sink, stdout } = await open({ json: true });
    await sink.answer(report('four'));
    await sink.failure(jsonFailureReport(new Error('boom')));
    const lines = stdout.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      report('four'),
      expect.objectContaining({ error: { name: 'Error', message: 'boom' } }),
    ]);
  });

  test('--out: the first answer replaces the file, later ones append; directories are made', async () => {
    const outFile = path.join(root, 'new', 'dir', 'answers.txt');
    const first = await open({ outFile });
    await writeFile(outFile, 'stale\n');
    // Opening checks the path but leaves the file alone until an answer arrives.
    expect(await readFile(outFile, 'utf8')).toBe('stale\n');
    await first.sink.answer(report('one'));
    await first.sink.answer(report('two'));
    expect(await readFile(outFile, 'utf8')).toBe('one\ntwo\n');
    expect(first.stdout.text).toBe('');
    expect(first.stderr.text).toBe(
      `rlm: answer written to ${outFile} (4 B)\nrlm: answer written to ${outFile} (4 B)\n`,
    );
    const quiet = await open({ outFile, quiet: true, json: true });
    await quiet.sink.answer(report('three'));
    expect(JSON.parse(await readFile(outFile, 'utf8'))).toEqual(report('three'));
    expect(quiet.stderr.text).toBe('');
  });

  test('--out that cannot be written: a usage error before any answer', async () => {
    const blocker = path.join(root, 'a-file');
    await writeFile(blocker, 'x');
    const underFile = path.join(blocker, 'answers.txt');
    await expect(open({ outFile: underFile })).rejects.toSatisfy(
      (error) =>
        UsageError.isInstance(error) &&
        error.message ===
          `--out ${underFile}: cannot create its directory (a parent is a file); give another path`,
    );
    await expect(open({ outFile: root })).rejects.toThrow(`--out ${root} is a directory`);
  });

  test('a write that fails after the run sends the answer to stdout and says so', async () => {
    const outFile = path.join(root, 'vanishing', 'answers.txt');
    const { sink, stdout } = await open({ outFile });
    // The directory goes away between the check and the answer.
    await rm(path.dirname(outFile), { recursive: true });
    await writeFile(path.dirname(outFile), 'now a file');
    await expect(sink.answer(report('kept'))).rejects.toThrow(
      `cannot write to ${outFile} (a parent is a file); the answer went to stdout instead`,
    );
    expect(stdout.text).toBe('kept\n');
  });
});
