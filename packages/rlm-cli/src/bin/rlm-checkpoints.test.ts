import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { type FakeMessagesServer, fakeError, fakeText } from '@rlm/anthropic/testing';
import { rewriteSqliteRows } from '@rlm/artifacts/testing';
import { expect, test } from 'vitest';
import { checkpointCount, waitForCheckpoints } from '../test-support/wait-for-checkpoints.js';
import { rlmLines, startBuiltRlm } from './start-built-rlm.js';
import { useBuiltRlmWorkspace } from './use-built-rlm-workspace.js';

/**
 * Checkpoints end to end: the built bin as real processes against the fake Messages API, a real
 * SQLite store, SIGKILL at several points, then `--resume`.
 */

const { root, serve } = useBuiltRlmWorkspace('rlm-cli-checkpoints-');

function spawnRlm(args: readonly string[], server: FakeMessagesServer, cwd: string) {
  return startBuiltRlm(args, { cwd, baseURL: server.url });
}

const repl = (code: string) => fakeText(`\`\`\`repl\n${code}\n\`\`\``);

test('a Map, a Set, a Date, a cycle and a BigInt survive SIGKILL after a checkpoint and --resume; a function is named lost, with the reason', {
  timeout: 120_000,
}, async () => {
  const directory = await mkdtemp(path.join(root, 'types-'));
  const file = path.join(directory, 'rlm.sqlite');
  const args = ['Count the words', '--store', file];
  const first = await serve([
    repl(
      [
        "const counts = new Map([['a', 1], ['b', 2]]);",
        'const seen = new Set([1, 2]);',
        'const when = new Date(86400000);',
        "const loop = { name: 'loop' }; loop.self = loop;",
        'const big = 2n ** 70n;',
        'const helper = (x) => x + 1;',
        'print(counts.size)',
      ].join('\n'),
    ),
    { ...fakeText('FINAL(never sent)'), delayMs: 120_000 },
  ]);
  const running = spawnRlm(args, first, directory);
  await running.stderrContains('● step 2');
  await waitForCheckpoints(file, 1);
  running.kill('SIGKILL');
  expect((await running.done).signal).toBe('SIGKILL');

  const second = await serve([
    repl(
      'const summary = JSON.stringify([counts instanceof Map, counts.get("b"), seen.has(2), when.getTime(), loop.self === loop, String(big)]);\nprint(summary)',
    ),
    fakeText('FINAL_VAR(summary)'),
  ]);
  const resumed = await spawnRlm([...args, '--resume'], second, directory).done;
  expect(resumed.code).toBe(0);
  expect(JSON.parse(resumed.stdout)).toEqual([true, 2, true, 86_400_000, true, String(2n ** 70n)]);
  const note = JSON.stringify(second.requests[0]!.body);
  expect(note).toContain('resumed after iteration 1');
  expect(note).toContain('Variables restored: big, counts, loop, seen, when.');
  expect(note).toContain('helper (a function)');
});

test('SIGKILL at several points while a large checkpoint is taken and written: --resume always finishes from a whole checkpoint', {
  timeout: 300_000,
}, async () => {
  for (const delayMs of [0, 150, 600]) {
    const directory = await mkdtemp(path.join(root, `kill-${delayMs}-`));
    const file = path.join(directory, 'rlm.sqlite');
    const args = ['Keep the words', '--store', file];
    const server = await serve([
      repl('const small = new Map([["kept", 42]]);\nprint(small.size)'),
      repl("const words = 'lorem ipsum dolor '.repeat(400000).split(' ');\nprint(words.length)"),
      { ...fakeText('FINAL(never sent)'), delayMs: 120_000 },
    ]);
    const running = spawnRlm(args, server, directory);
    await running.stderrContains('● step 3');
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    running.kill('SIGKILL');
    expect((await running.done).signal).toBe('SIGKILL');

    const resume = await serve([
      repl(
        'const answer = `${small.get("kept")}:${typeof words === "undefined" ? "none" : words.length + words[4]}`;\nprint(answer)',
      ),
      fakeText('FINAL_VAR(answer)'),
    ]);
    const resumed = await spawnRlm([...args, '--resume'], resume, directory).done;
    // From the step-1 checkpoint or the step-2 one, whichever was whole when killed; the words
    // array (made in pieces) whole with the second.
    const from = /resumed after iteration ([12])/.exec(JSON.stringify(resume.requests[0]!.body));
    expect(from).not.toBeNull();
    expect({ delayMs, code: resumed.code, stdout: resumed.stdout }).toEqual({
      delayMs,
      code: 0,
      stdout: from?.[1] === '2' ? '42:1200001ipsum\n' : '42:none\n',
    });
  }
});

test('--checkpoint-max-variable-bytes: a larger variable is named, skipped with a warning, lost on resume; the rest is kept', {
  timeout: 120_000,
}, async () => {
  const directory = await mkdtemp(path.join(root, 'cap-'));
  const file = path.join(directory, 'rlm.sqlite');
  const args = ['Cap the variables', '--store', file, '--checkpoint-max-variable-bytes', '64K'];
  const first = await serve([
    repl("const large = 'x'.repeat(200000);\nconst small = 'kept';\nprint(large.length)"),
    { ...fakeText('FINAL(never sent)'), delayMs: 120_000 },
  ]);
  const running = spawnRlm(args, first, directory);
  await running.stderrContains('Not saved in the checkpoint');
  await waitForCheckpoints(file, 1);
  running.kill('SIGKILL');
  const killed = await running.done;
  expect(killed.stderr).toMatch(
    /⚠ Not saved in the checkpoint \(over checkpointMaxVariableBytes, 65536 bytes\): large/,
  );

  const second = await serve([fakeText('FINAL_VAR(small)')]);
  const resumed = await spawnRlm([...args, '--resume'], second, directory).done;
  expect(resumed).toMatchObject({ code: 0, stdout: 'kept\n' });
  expect(JSON.stringify(second.requests[0]!.body)).toContain(
    'large (larger than the checkpoint limit of 65536 bytes)',
  );
});

test('--checkpoint-max-lag 0: every step waits for its snapshot, so the heavy step is checkpointed too', {
  timeout: 120_000,
}, async () => {
  const checkpointsWith = async (extra: readonly string[]) => {
    const directory = await mkdtemp(path.join(root, 'lag-'));
    const file = path.join(directory, 'rlm.sqlite');
    const server = await serve([
      repl('const words = [];\nfor (let i = 0; i < 4000000; i++) words.push("w" + (i % 7919));'),
      repl('const n = words.length;'),
      // A failed run saves the checkpoint in flight before it exits.
      fakeError(400),
    ]);
    const done = await spawnRlm(['Keep every step', '--store', file, ...extra], server, directory)
      .done;
    expect(done.code).toBe(1);
    return checkpointCount(file);
  };
  // Each step's snapshot taken before the next step runs: both steps are checkpointed.
  expect(await checkpointsWith(['--checkpoint-max-lag', '0'])).toBe(2);
  // By default step 2 preempts the snapshot of step 1 (millions of strings), which is dropped.
  expect(await checkpointsWith([])).toBe(1);
});

test('a checkpoint row that lies (a page of a billion messages, an iteration past its transcript) makes --resume fail with one line naming the run; nothing is asked or lost, and a fresh run works', {
  timeout: 120_000,
}, async () => {
  const directory = await mkdtemp(path.join(root, 'tampered-'));
  const file = path.join(directory, 'rlm.sqlite');
  const args = ['Tamper with me', '--store', file];
  const first = await serve([
    repl('const kept = [1, 2, 3];\nprint(kept.length)'),
    { ...fakeText('FINAL(never sent)'), delayMs: 120_000 },
  ]);
  const running = spawnRlm(args, first, directory);
  await running.stderrContains('● step 2');
  await waitForCheckpoints(file, 1);
  running.kill('SIGKILL');
  expect((await running.done).signal).toBe('SIGKILL');

  const resume = async (from: string, to: string) => {
    expect(await rewriteSqliteRows(file, 'rlm:checkpoint:%', from, to)).toBe(1);
    const server = await serve([fakeText('FINAL(resumed)')]);
    const result = await spawnRlm([...args, '--resume'], server, directory).done;
    expect(await rewriteSqliteRows(file, 'rlm:checkpoint:%', to, from)).toBe(1);
    expect(server.requests).toHaveLength(0);
    expect(result.code).toBe(1);
    expect(result.signal).toBeNull();
    // Besides the error: the lease taken over from the killed run, and the trace kept.
    const errors = rlmLines(result.stderr).filter(
      (line) => !/^rlm: (took over the run|trace kept)/.test(line),
    );
    expect(errors, result.stderr).toHaveLength(1);
    return errors[0]!;
  };
  // The page of the whole entry now claims about a billion messages.
  expect(await resume('"start":0,"count":', '"start":0,"count":99999999')).toMatch(
    /^rlm: a checkpoint of run "[0-9a-f]+" is damaged \(the checkpoint at key "rlm:checkpoint:[0-9a-f:]+" takes messages 0 to 9{8}\d of blob [0-9a-f]{12}, which holds \d\); it cannot be resumed: run it again without --resume to start over$/,
  );
  expect(await resume('"iteration":1,', '"iteration":1000000000,')).toMatch(
    /^rlm: checkpoint "[\w-]+" of run "[0-9a-f]+" does not hold together \(its iteration 1000000000 is not a count of the steps its \d+ messages record\); it cannot be resumed: run it again without --resume to start over$/,
  );
  // The refused resumes lost nothing: with the rows as they were, the checkpoint resumes.
  const intact = await serve([repl('print(kept.join("+"))'), fakeText('FINAL(resumed)')]);
  const resumed = await spawnRlm([...args, '--resume'], intact, directory).done;
  expect(resumed).toMatchObject({ code: 0, stdout: 'resumed\n' });
  expect(JSON.stringify(intact.requests[0]!.body)).toContain('resumed after iteration 1');
  expect(JSON.stringify(intact.requests[1]!.body)).toContain('1+2+3');
  const fresh = await serve([fakeText('FINAL(started over)')]);
  const again = await spawnRlm(args, fresh, directory).done;
  expect(again).toMatchObject({ code: 0, stdout: 'started over\n' });
});
