import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import {
  type FakeMessagesRequest,
  type FakeMessagesServer,
  type FakeReply,
  fakeError,
  fakeText,
} from '@rlm/anthropic/testing';
import { describe, expect, test } from 'vitest';
import { type BuiltRlmOptions, type BuiltRlmResult, startBuiltRlm } from './start-built-rlm.js';
import { useBuiltRlmWorkspace } from './use-built-rlm-workspace.js';

/** `rlm batch` end to end: the built bin as a real subprocess against the fake Messages API. */

const { serve, makeTree } = useBuiltRlmWorkspace('rlm-cli-batch-');
let server: FakeMessagesServer | undefined;

/** Runs the bin in `directory` against the running fake server. */
function runRlm(
  args: readonly string[],
  directory: string,
  onStderr?: (stderr: string, kill: (signal: NodeJS.Signals) => void) => void,
  options: Partial<BuiltRlmOptions> = {},
): Promise<BuiltRlmResult> {
  return startBuiltRlm(args, {
    cwd: directory,
    baseURL: server?.url ?? 'http://127.0.0.1:9',
    onStderr,
    ...options,
  }).done;
}

/** The query of a request: `Question <n>?` in its first message. */
function questionOf(request: FakeMessagesRequest): string | undefined {
  return /Question ([\w-]+)\?/.exec(JSON.stringify(request.messages[0]))?.[1];
}

/**
 * A fake server answering `Question <n>?` with `FINAL(answer <n>)` after `delayMs`, counting
 * the requests in flight; `reply` may script other answers.
 */
async function startAnsweringServer(
  options: {
    delayMs?: number;
    reply?: (question: string) => FakeReply | undefined;
    /** Each reply waits for this first. */
    gate?: Promise<unknown>;
  } = {},
) {
  const inFlight = { now: 0, max: 0 };
  server = await serve({
    handler: async (request) => {
      inFlight.now++;
      inFlight.max = Math.max(inFlight.max, inFlight.now);
      try {
        await options.gate;
        await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 0));
        const question = questionOf(request) ?? 'none';
        return options.reply?.(question) ?? fakeText(`FINAL(answer ${question})`);
      } finally {
        inFlight.now--;
      }
    },
  });
  return inFlight;
}

function makeBatch(name: string, lines: readonly string[]): Promise<string> {
  return makeTree(name, { 'queries.jsonl': `${lines.join('\n')}\n` });
}

function jobLine(id: string | number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id, query: `Question ${id}?`, ...extra });
}

interface ResultLine {
  readonly id: string | number;
  readonly answer?: unknown;
  readonly error?: { readonly name: string; readonly message: string };
  readonly usage: { readonly modelCalls: number; readonly costUsd?: number };
  readonly costUsd?: number;
  readonly durationMs: number;
}

/** The complete result lines of a results file (a line cut short by a kill is left out). */
async function readResults(file: string): Promise<ResultLine[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as ResultLine];
      } catch {
        return [];
      }
    });
}

const storeless = ['--no-store'];

describe('rlm batch (built bin)', () => {
  test('20 queries at concurrency 4: every id answered once, at most 4 at a time', async () => {
    const inFlight = await startAnsweringServer({ delayMs: 150 });
    const directory = await makeBatch(
      'twenty',
      Array.from({ length: 20 }, (_, index) => jobLine(index + 1)),
    );
    const result = await runRlm(
      ['batch', 'queries.jsonl', '--concurrency', '4', '--out', 'results.jsonl', ...storeless],
      directory,
    );
    expect(result.stderr).toContain('rlm: batch done: 20 answered, 0 failed');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    const results = await readResults(path.join(directory, 'results.jsonl'));
    expect(results.map((line) => line.id).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 20 }, (_, index) => index + 1),
    );
    for (const line of results) {
      expect(line.answer).toBe(`answer ${line.id}`);
      expect(line.usage.modelCalls).toBe(1);
      expect(line.costUsd).toBeGreaterThan(0);
      expect(line.costUsd).toBe(line.usage.costUsd);
      expect(line.durationMs).toBeGreaterThan(0);
    }
    expect(server!.requests).toHaveLength(20);
    expect(inFlight.max).toBeLessThanOrEqual(4);
    expect(inFlight.max).toBeGreaterThan(1);
    // Piped stderr: one plain line per job.
    expect(result.stderr.match(/^rlm: \[\d+\/20\] id \d+ answered in /gm)).toHaveLength(20);
  });

  test('a line context replaces the batch context; results go to stdout without --out', async () => {
    server = await serve({
      handler: () => fakeText('```repl\nconst seen = String(context).trim()\n```\nFINAL_VAR(seen)'),
    });
    const directory = await makeBatch('contexts', [
      jobLine('own', { context: 'docs/own.txt' }),
      jobLine('shared'),
    ]);
    await mkdir(path.join(directory, 'docs'));
    await writeFile(path.join(directory, 'docs', 'own.txt'), 'the line context\n');
    await writeFile(path.join(directory, 'shared.txt'), 'the batch context\n');
    const result = await runRlm(
      ['batch', 'queries.jsonl', '--context', 'shared.txt', '--quiet', ...storeless],
      directory,
    );
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ResultLine);
    expect(Object.fromEntries(lines.map((line) => [line.id, line.answer]))).toEqual({
      own: 'the line context',
      shared: 'the batch context',
    });
  });

  test('bad lines are reported with their line number and skipped; the rest run; exit 1', async () => {
    await startAnsweringServer();
    const directory = await makeBatch('bad-lines', [
      jobLine(1),
      '{"id": 2, "query": "Question 2?"',
      JSON.stringify({ id: 3 }),
      jobLine(1),
      jobLine(5, { context: 'missing.txt' }),
      jobLine(6),
      jobLine('6'),
    ]);
    const result = await runRlm(
      ['batch', 'queries.jsonl', '-o', 'results.jsonl', ...storeless],
      directory,
    );
    expect(result.code).toBe(1);
    const reported = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('rlm: queries.jsonl:'));
    expect(reported).toEqual([
      expect.stringMatching(/^rlm: queries\.jsonl:2: not valid JSON.*; skipped$/),
      expect.stringMatching(/^rlm: queries\.jsonl:3: id 3 needs a "query".*; skipped$/),
      expect.stringMatching(
        /^rlm: queries\.jsonl:4: duplicate id 1 \(first on line 1\).*; skipped$/,
      ),
      expect.stringMatching(
        /^rlm: queries\.jsonl:5: id 5: no context file .*missing\.txt; skipped$/,
      ),
      'rlm: queries.jsonl:7: duplicate id "6" (first on line 6 as 6; ids are compared as strings); give each line its own id; skipped',
    ]);
    const results = await readResults(path.join(directory, 'results.jsonl'));
    expect(results.map((line) => [line.id, line.answer])).toEqual(
      expect.arrayContaining([
        [1, 'answer 1'],
        [6, 'answer 6'],
      ]),
    );
    expect(results).toHaveLength(2);
    expect(server!.requests).toHaveLength(2);
  });

  test('a failed job is written with its error; the rerun retries only it and asks nothing for the answered ids', async () => {
    await startAnsweringServer({
      reply: (question) =>
        question === '3' && server!.requests.length <= 5
          ? fakeError(400, { message: 'scripted refusal' })
          : undefined,
    });
    const directory = await makeBatch(
      'rerun',
      Array.from({ length: 5 }, (_, index) => jobLine(index + 1)),
    );
    const args = ['batch', 'queries.jsonl', '-o', 'results.jsonl', ...storeless];
    const first = await runRlm(args, directory);
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/^rlm: \[\d\/5\] id 3 failed: /m);
    const failed = (await readResults(path.join(directory, 'results.jsonl'))).find(
      (line) => line.id === 3,
    );
    expect(failed?.error?.name).toBe('ModelCallError');
    expect(failed?.answer).toBeUndefined();
    expect(server!.requests).toHaveLength(5);

    const second = await runRlm(args, directory);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('rlm: 4 ids are already answered in results.jsonl');
    const asked = server!.requests.slice(5).map((request) => questionOf(request.body as never));
    expect(asked).toEqual(['3']);
    const answers = (await readResults(path.join(directory, 'results.jsonl'))).filter(
      (line) => 'answer' in line,
    );
    expect(answers.map((line) => line.id).sort()).toEqual([1, 2, 3, 4, 5]);

    const third = await runRlm(args, directory);
    expect(third.code).toBe(0);
    expect(server!.requests).toHaveLength(6);
  });

  test('SIGKILL mid-batch, then the same command: every id answered exactly once', async () => {
    await startAnsweringServer({ delayMs: 200 });
    const count = 12;
    const directory = await makeBatch(
      'killed',
      Array.from({ length: count }, (_, index) => jobLine(`k${index + 1}`)),
    );
    const args = [
      'batch',
      'queries.jsonl',
      '-o',
      'results.jsonl',
      '--concurrency',
      '3',
      ...storeless,
    ];
    const killed = await runRlm(args, directory, (stderr, kill) => {
      if (/\[4\/12\]/.test(stderr)) kill('SIGKILL');
    });
    expect(killed.signal).toBe('SIGKILL');
    const before = await readResults(path.join(directory, 'results.jsonl'));
    expect(before.length).toBeGreaterThanOrEqual(4);
    expect(before.length).toBeLessThan(count);
    const requestsBefore = server!.requests.length;

    const rerun = await runRlm(args, directory);
    expect(rerun.code).toBe(0);
    const results = await readResults(path.join(directory, 'results.jsonl'));
    const ids = results.filter((line) => 'answer' in line).map((line) => line.id);
    expect(ids.sort()).toEqual(Array.from({ length: count }, (_, index) => `k${index + 1}`).sort());
    // The rerun asked only for the ids the killed batch had not written.
    const askedAgain = server!.requests
      .slice(requestsBefore)
      .map((request) => questionOf(request.body as never));
    expect(new Set(askedAgain)).toEqual(
      new Set(
        Array.from({ length: count }, (_, index) => `k${index + 1}`).filter(
          (id) => !before.some((line) => line.id === id),
        ),
      ),
    );
  });

  test('--max-batch-cost: once spent, no job starts; the rest are reported as not run', async () => {
    await startAnsweringServer();
    const directory = await makeBatch(
      'capped',
      Array.from({ length: 6 }, (_, index) => jobLine(index + 1)),
    );
    // Each job costs about $0.0014 on the default model's price: the cap is passed after two.
    const result = await runRlm(
      [
        'batch',
        'queries.jsonl',
        '-o',
        'results.jsonl',
        '--concurrency',
        '1',
        '--max-batch-cost',
        '0.002',
        ...storeless,
      ],
      directory,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /rlm: the batch spent \$0\.\d{4} of --max-batch-cost \$0\.002: 4 jobs not run \(3, 4, 5, 6\)/,
    );
    expect(result.stderr).toContain('2 answered, 0 failed, 4 not run');
    expect(await readResults(path.join(directory, 'results.jsonl'))).toHaveLength(2);
    expect(server!.requests).toHaveLength(2);
  });

  test('on a terminal: one live progress line, rewritten in place, then the closing line', async () => {
    await startAnsweringServer({ delayMs: 100 });
    const directory = await makeBatch(
      'terminal',
      Array.from({ length: 6 }, (_, index) => jobLine(index + 1)),
    );
    const result = await startBuiltRlm(
      ['batch', 'queries.jsonl', '-o', 'results.jsonl', '--concurrency', '2', ...storeless],
      { cwd: directory, baseURL: server!.url, terminal: true },
    ).done;
    expect(result.code).toBe(0);
    const frames = result.stdout.split('\r\u001b[2K').filter((frame) => frame !== '');
    expect(frames.some((frame) => /^rlm batch: 0\/6 done · [12] running · /.test(frame))).toBe(
      true,
    );
    expect(frames.some((frame) => /^rlm batch: [1-5]\/6 done · .* · ~.+ left$/.test(frame))).toBe(
      true,
    );
    // No per-job lines on a terminal: the progress line counts them.
    expect(result.stdout).not.toMatch(/\[\d\/6\] id/);
    expect(result.stdout).toMatch(/rlm: batch done: 6 answered, 0 failed · /);
  });

  test('usage errors exit 2 with one line: no such file, bad --concurrency, --json', async () => {
    const directory = await makeBatch('usage', [jobLine(1)]);
    const missing = await runRlm(['batch', 'nope.jsonl'], directory);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^rlm: cannot read the batch nope\.jsonl: no such file; /);
    const zero = await runRlm(['batch', 'queries.jsonl', '--concurrency', '0'], directory);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--concurrency needs a positive whole number');
    const json = await runRlm(['batch', 'queries.jsonl', '--json'], directory);
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('rlm batch takes no --json');
    const none = await runRlm(['batch'], directory);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('rlm batch needs a JSONL file');
  });

  test('one batch per --out: a second one is refused naming the first, which writes every id once', async () => {
    // The first batch's answers wait until the second has been refused, however slowly it
    // starts.
    let secondEnded = () => {};
    await startAnsweringServer({ gate: new Promise<void>((resolve) => (secondEnded = resolve)) });
    const directory = await makeBatch(
      'locked',
      Array.from({ length: 4 }, (_, index) => jobLine(index + 1)),
    );
    const args = [
      'batch',
      'queries.jsonl',
      '-o',
      'results.jsonl',
      '--concurrency',
      '1',
      ...storeless,
    ];
    const first = startBuiltRlm(args, { cwd: directory, baseURL: server!.url });
    const lock = path.join(directory, 'results.jsonl.lock');
    while (!existsSync(lock)) await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await runRlm(args, directory);
    secondEnded();
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(
      new RegExp(
        `^rlm: --out results\\.jsonl is being written by another rlm batch \\(process ${first.pid} on ${hostname()}, since .*\\): wait for it to end or stop it \\(kill ${first.pid}\\), or pass another --out; if that process is gone, delete results\\.jsonl\\.lock\\n$`,
      ),
    );
    const done = await first.done;
    expect(done.code).toBe(0);
    const ids = (await readResults(path.join(directory, 'results.jsonl'))).map((line) => line.id);
    expect(ids).toEqual([1, 2, 3, 4]);
    expect(server!.requests).toHaveLength(4);
    expect(existsSync(lock)).toBe(false);
  });

  test('a full disk (a file size limit): the failed line is cut off, the batch stops naming --out and the ids not written, exit 1; the rerun writes them once', async () => {
    // Lines of about 500 bytes: the limit lets two through and stops the third half-way.
    await startAnsweringServer({
      reply: (question) => fakeText(`FINAL(${question} ${'a'.repeat(400)})`),
    });
    const directory = await makeBatch(
      'full',
      Array.from({ length: 6 }, (_, index) => jobLine(index + 1)),
    );
    const args = [
      'batch',
      'queries.jsonl',
      '-o',
      'results.jsonl',
      '--concurrency',
      '1',
      ...storeless,
    ];
    const full = await runRlm(args, directory, undefined, { wrapper: ['prlimit', '--fsize=1300'] });
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(
      /^rlm: cannot write to --out results\.jsonl: EFBIG: file too large, write; stopped the batch: 4 ids are not written \(3, 4, 5, 6\); free space or fix the file, then rerun the same command$/m,
    );
    const text = await readFile(path.join(directory, 'results.jsonl'), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(
      text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line).id),
    ).toEqual([1, 2]);
    const rerun = await runRlm(args, directory);
    expect(rerun.code).toBe(0);
    const ids = (await readResults(path.join(directory, 'results.jsonl'))).map((line) => line.id);
    expect(ids.sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  test('a torn last line left by a kill is removed by the rerun, and its id runs again', async () => {
    await startAnsweringServer();
    const directory = await makeTree('torn', {
      'queries.jsonl': `${[jobLine(1), jobLine(2)].join('\n')}\n`,
      'results.jsonl':
        '{"id":1,"answer":"answer 1","usage":{"modelCalls":1},"durationMs":1}\n{"id":2,"answer":"ans',
    });
    const result = await runRlm(
      ['batch', 'queries.jsonl', '-o', 'results.jsonl', ...storeless],
      directory,
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'rlm: the last line of results.jsonl was cut short (a batch stopped mid-write); removed its 21 bytes: its job runs again',
    );
    const lines = await readResults(path.join(directory, 'results.jsonl'));
    expect(lines.map((line) => [line.id, line.answer])).toEqual([
      [1, 'answer 1'],
      [2, 'answer 2'],
    ]);
  });

  test('a SQLite store that fills up: each result records the failure, exit 3; --store-errors warn exits 0', async () => {
    server = await serve({
      handler: (request) =>
        request.messages.length === 1
          ? fakeText(
              '```repl\ntry { await store("big", "x".repeat(8000000)) } catch (error) { print("refused") }\n```',
            )
          : fakeText(`FINAL(answer ${questionOf(request)})`),
    });
    const directory = await makeBatch('store-full', [jobLine(1), jobLine(2)]);
    const args = ['batch', 'queries.jsonl', '--store', 'store.sqlite', '--concurrency', '1'];
    // Room for the store's first pages and the results, not for an 8 MB value.
    const limit = { wrapper: ['prlimit', '--fsize=4194304'] };
    const failed = await runRlm([...args, '-o', 'results.jsonl'], directory, undefined, limit);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(
      /^rlm: id 1: the store failed \(\w+\): .*; the batch goes on, but what this job stores may be lost \(exit 3 at the end; --store-errors warn for 0\)$/m,
    );
    expect(failed.stderr).toMatch(
      /^rlm: every job answered, but the store failed during 2 of them \(first: /m,
    );
    const lines = await readResults(path.join(directory, 'results.jsonl'));
    expect(lines.map((line) => line.answer)).toEqual(['answer 1', 'answer 2']);
    for (const line of lines) {
      expect((line as { storeFailures?: { count: number } }).storeFailures?.count).toBeGreaterThan(
        0,
      );
    }
    const warned = await runRlm(
      [...args, '-o', 'warned.jsonl', '--store-errors', 'warn'],
      directory,
      undefined,
      limit,
    );
    expect(warned.code).toBe(0);
  });

  test('--max-batch-artifact-bytes bounds what all the jobs store together', async () => {
    server = await serve({
      handler: (request) => {
        if (request.messages.length === 1) {
          return fakeText(
            '```repl\ntry { await store("big", "x".repeat(600)); print("stored") } catch (error) { print("refused: " + error.message) }\n```',
          );
        }
        const output = JSON.stringify(request.messages.at(-1)?.content);
        return fakeText(
          output.includes('output:\\nstored')
            ? 'FINAL(stored)'
            : `FINAL(refused ${output.includes('--max-batch-artifact-bytes')})`,
        );
      },
    });
    const directory = await makeBatch('quota', [jobLine(1), jobLine(2), jobLine(3)]);
    const result = await runRlm(
      [
        'batch',
        'queries.jsonl',
        '-o',
        'results.jsonl',
        '--store',
        'store.sqlite',
        '--concurrency',
        '1',
        '--max-batch-artifact-bytes',
        '1000',
      ],
      directory,
    );
    expect(result.code).toBe(0);
    const lines = await readResults(path.join(directory, 'results.jsonl'));
    expect(lines.map((line) => [line.id, line.answer])).toEqual([
      [1, 'stored'],
      [2, 'refused true'],
      [3, 'refused true'],
    ]);
  });

  test('retry notices name the job; a 20 MB query is refused without a model call; a long id is cut in messages', async () => {
    let refused = false;
    server = await serve({
      handler: (request) => {
        const question = questionOf(request);
        if (question === 'r' && !refused) {
          refused = true;
          return fakeError(429, { retryAfterSeconds: 1 });
        }
        if (question === 'bad') return fakeError(400, { message: 'scripted refusal' });
        return fakeText(`FINAL(answer ${question})`);
      },
    });
    const longId = `bad-${'x'.repeat(1_000_000)}`;
    const directory = await makeBatch('notices', [
      jobLine('r'),
      JSON.stringify({ id: 'huge', query: `Question huge? ${'q'.repeat(20_000_000)}` }),
      JSON.stringify({ id: longId, query: 'Question bad?' }),
    ]);
    const result = await runRlm(
      ['batch', 'queries.jsonl', '-o', 'results.jsonl', ...storeless],
      directory,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'rlm: id "r": the API answered 429 rate_limit_error; retrying in 1 s, as the API asked (attempt 2 of 3)',
    );
    expect(result.stderr).toContain(
      'rlm: queries.jsonl:2: id "huge": the query has 20,000,015 characters, over --max-query-chars 100000; shorten it (put the material in its context) or raise --max-query-chars; skipped',
    );
    expect(result.stderr).toMatch(
      new RegExp(
        `^rlm: \\[\\d/2\\] id "${longId.slice(0, 47)}…" \\(1,000,004 characters\\) failed: `,
        'm',
      ),
    );
    for (const line of result.stderr.split('\n')) expect(line.length).toBeLessThan(500);
    expect(server!.requests.map((request) => questionOf(request.body as never)).sort()).toEqual([
      'bad',
      'r',
      'r',
    ]);
  });

  test('the run index under concurrent processes: 16 runs on one store at once, rlm runs lists every one', async () => {
    await startAnsweringServer();
    const directory = await makeTree('runs', {});
    const runs = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        runRlm([`Question ${index}?`, '--store', 'shared.sqlite', '--quiet'], directory),
      ),
    );
    expect(runs.map((run) => run.code)).toEqual(Array(16).fill(0));
    const listed = await runRlm(
      ['runs', '--limit', '100', '--json', '--store', 'shared.sqlite'],
      directory,
    );
    const questions = (JSON.parse(listed.stdout) as { query: string }[])
      .map((run) => run.query)
      .sort();
    expect(questions).toEqual(
      Array.from({ length: 16 }, (_, index) => `Question ${index}?`).sort(),
    );
  });

  test('SIGTERM mid-batch: running jobs stop unwritten, the ids not answered are named, exit 143; the rerun answers them once', async () => {
    await startAnsweringServer({ delayMs: 600 });
    const directory = await makeBatch(
      'terminated',
      Array.from({ length: 5 }, (_, index) => jobLine(index + 1)),
    );
    const args = [
      'batch',
      'queries.jsonl',
      '-o',
      'results.jsonl',
      '--concurrency',
      '2',
      ...storeless,
    ];
    let signalled = false;
    const stopped = await runRlm(args, directory, (stderr, kill) => {
      if (stderr.includes('[1/5]') && !signalled) {
        signalled = true;
        kill('SIGTERM');
      }
    });
    expect(stopped.code).toBe(143);
    expect(stopped.stderr).toMatch(
      /^rlm: terminated: stopping [12] running jobs? \(not written, so a rerun runs them\); again to quit at once$/m,
    );
    const written = (await readResults(path.join(directory, 'results.jsonl'))).map(
      (line) => line.id,
    );
    const missing = [1, 2, 3, 4, 5].filter((id) => !written.includes(id));
    expect(stopped.stderr).toContain(
      `rlm: ${missing.length} ids are not answered (${missing.join(', ')}): rerun the same command to run them`,
    );
    expect(existsSync(path.join(directory, 'results.jsonl.lock'))).toBe(false);
    const rerun = await runRlm(args, directory);
    expect(rerun.code).toBe(0);
    const ids = (await readResults(path.join(directory, 'results.jsonl'))).map((line) => line.id);
    expect(ids.sort()).toEqual([1, 2, 3, 4, 5]);
  });
});
