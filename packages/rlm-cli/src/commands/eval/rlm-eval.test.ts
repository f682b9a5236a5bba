import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type FakeMessagesRequest,
  type FakeMessagesServer,
  type FakeReply,
  fakeText,
} from '@rlm/anthropic/testing';
import { type RedisServer, startRedisServer } from '@rlm/artifacts/testing';
import { type EvalResult, readEvalResults, summarizeEval } from '@rlm/eval';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, test } from 'vitest';
import { type BuiltRlmResult, startBuiltRlm } from '../../bin/start-built-rlm.js';
import { useBuiltRlmWorkspace } from '../../bin/use-built-rlm-workspace.js';
import { batchQueueName, queueKeys } from '../../queue/batch-queue-job.js';
import { parseQueueUrl } from '../../queue/parse-queue-url.js';
import { killedAfterCheckpoint } from '../../test-support/killed-after-checkpoint.js';
import { redisCli } from '../../test-support/redis-cli.js';

/**
 * `rlm eval` end to end: the built bin as real subprocesses against the fake Messages API; with
 * `--queue`, a real `redis-server` and real `rlm worker` processes.
 */

const { serve, makeTree } = useBuiltRlmWorkspace('rlm-cli-eval-');
let server: FakeMessagesServer | undefined;

function runRlm(
  args: readonly string[],
  directory: string,
  onStderr?: (stderr: string, kill: (signal: NodeJS.Signals) => void) => void,
): Promise<BuiltRlmResult> {
  return startBuiltRlm(args, {
    cwd: directory,
    baseURL: server?.url ?? 'http://127.0.0.1:9',
    onStderr,
  }).done;
}

function textOf(request: FakeMessagesRequest): string {
  return JSON.stringify(request.messages);
}

function systemOf(request: FakeMessagesRequest): string {
  return typeof request.system === 'string' ? request.system : JSON.stringify(request.system ?? '');
}

/** The item a request is about: `Question <n>?` in its messages. */
function questionOf(request: FakeMessagesRequest): string {
  return /Question (\w+)\?/.exec(textOf(request))?.[1] ?? 'none';
}

/**
 * A fake API for every part of an eval: the RLM's root (`FINAL(answer <n>)`, or what `rlm`
 * says for a model and item), the direct baseline (its answer read from the context it is
 * sent), and the judge (`judge`).
 */
async function startEvalServer(
  options: {
    readonly delayMs?: number;
    readonly rlm?: (model: string, question: string) => string | undefined;
    readonly judge?: (question: string) => FakeReply;
    /** Shortest prompt prefix the fake API caches (see `FakePromptCache`). */
    readonly cacheMinimumTokens?: number;
  } = {},
) {
  server = await serve({
    ...(options.cacheMinimumTokens === undefined
      ? {}
      : { promptCache: { minimumTokens: options.cacheMinimumTokens } }),
    handler: async (request) => {
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 0));
      const question = questionOf(request);
      const system = systemOf(request);
      if (system.includes('You grade answers')) {
        return options.judge?.(question) ?? fakeText('{"score": 1, "reason": "matches"}');
      }
      if (system.includes('Answer the question from the context')) {
        return fakeText(/the answer is ([\w ]+?)\./.exec(textOf(request))?.[1] ?? 'no idea');
      }
      return fakeText(`FINAL(${options.rlm?.(request.model, question) ?? `answer ${question}`})`);
    },
  });
  return server;
}

/** A dataset of `count` items `Question <n>?` expecting `answer <n>`, with context files. */
function makeDataset(
  name: string,
  count: number,
  options: { readonly largeFrom?: number; readonly extraLines?: readonly string[] } = {},
): Promise<string> {
  const files: Record<string, string> = {};
  const lines: string[] = [];
  for (let id = 1; id <= count; id++) {
    const large = options.largeFrom !== undefined && id >= options.largeFrom;
    const filler = 'filler text. '.repeat(large ? 3_000 : 20);
    files[`contexts/${id}.txt`] = `${filler}the answer is answer ${id}. ${filler}`;
    lines.push(
      JSON.stringify({
        id,
        query: `Question ${id}?`,
        context: `contexts/${id}.txt`,
        expected: `answer ${id}`,
      }),
    );
  }
  files['data.jsonl'] = `${[...lines, ...(options.extraLines ?? [])].join('\n')}\n`;
  return makeTree(name, files);
}

async function readResults(directory: string, file = 'results.jsonl'): Promise<EvalResult[]> {
  return [...readEvalResults(await readFile(path.join(directory, file), 'utf8')).results];
}

/** Every complete line of a results file, duplicates included. */
async function readLines(directory: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path.join(directory, 'results.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** `rlm eval` of `data.jsonl`, scored by `contains`, with variants a (Sonnet) and b (Haiku). */
const evalTwoVariants = [
  'eval',
  'data.jsonl',
  '--scorer',
  'contains',
  '--variant',
  'a=--model anthropic:claude-sonnet-4-5',
  '--variant',
  'b=--model anthropic:claude-haiku-4-5',
];

function summaryRow(stdout: string, variant: string): string | undefined {
  return stdout.split('\n').find((line) => line.startsWith(`${variant} `));
}

describe('rlm eval (built bin)', () => {
  test('known answers give known scores and Wilson intervals; the baseline records what did not fit', async () => {
    await startEvalServer({
      rlm: (model, question) =>
        model === 'claude-haiku-4-5' && Number(question) % 2 === 0
          ? 'a wrong answer'
          : model === 'claude-sonnet-4-5' && Number(question) >= 9
            ? 'I do not know'
            : undefined,
    });
    const directory = await makeDataset('known', 10, { largeFrom: 6 });
    const result = await runRlm(
      [
        'eval',
        'data.jsonl',
        '--variant',
        'sonnet=--model anthropic:claude-sonnet-4-5',
        '--variant',
        'haiku=--model anthropic:claude-haiku-4-5',
        '--model',
        'anthropic:claude-haiku-4-5',
        '--baseline',
        'direct',
        '--baseline-window',
        '4k',
        '-o',
        'results.jsonl',
      ],
      directory,
    );
    expect(result.stderr).toContain('rlm: batch done: 30 answered, 0 failed');
    expect(result.code).toBe(0);
    // Wilson 95%: 8 of 10 is 0.490–0.943, 5 of 10 is 0.237–0.763.
    expect(summaryRow(result.stdout, 'sonnet')).toMatch(
      /^sonnet\s+10\s+0\.800\s+0\.490–0\.943\s+\$/,
    );
    expect(summaryRow(result.stdout, 'haiku')).toMatch(/^haiku\s+10\s+0\.500\s+0\.237–0\.763\s+\$/);
    expect(summaryRow(result.stdout, 'direct')).toMatch(
      /^direct\s+10\s+0\.500\s+0\.237–0\.763\s+\$/,
    );
    expect(result.stdout).toContain('direct: 5 did not fit the window (scored 0)');
    // Its progress line says so, not "answered in 0 ms".
    expect(result.stderr).toMatch(
      /^rlm: \[\d+\/30\] id "6 \(direct\)" did not fit the model's window \(about 19,537 tokens for a window of 4,000\): not sent, scored 0$/m,
    );
    expect(result.stderr).not.toMatch(/\(direct\)" answered in 0 ms/);
    expect(result.stdout).toContain('CI: Wilson score interval (scores all 0 or 1)');

    const lines = await readResults(directory);
    expect(lines).toHaveLength(30);
    const score = (variant: string) =>
      Object.fromEntries(
        lines.filter((line) => line.variant === variant).map((line) => [line.id, line.score]),
      );
    expect(score('sonnet')).toEqual({
      1: 1,
      2: 1,
      3: 1,
      4: 1,
      5: 1,
      6: 1,
      7: 1,
      8: 1,
      9: 0,
      10: 0,
    });
    expect(score('haiku')).toEqual({ 1: 1, 2: 0, 3: 1, 4: 0, 5: 1, 6: 0, 7: 1, 8: 0, 9: 1, 10: 0 });
    expect(score('direct')).toEqual({
      1: 1,
      2: 1,
      3: 1,
      4: 1,
      5: 1,
      6: 0,
      7: 0,
      8: 0,
      9: 0,
      10: 0,
    });
    for (const line of lines) {
      expect(line.expected).toBe(`answer ${line.id}`);
      expect(line.contextChars).toBeGreaterThan(0);
      if (line.didNotFit) {
        expect(line.variant).toBe('direct');
        expect(line.id).toBeGreaterThanOrEqual(6);
        expect(line.didNotFit.windowTokens).toBe(4_000);
        expect(line.answer ?? null).toBeNull();
        continue;
      }
      expect(typeof line.answer).toBe('string');
      expect(line.costUsd).toBeGreaterThan(0);
      expect(line.tokens).toBeGreaterThan(0);
      expect(line.durationMs).toBeGreaterThan(0);
      expect(line.steps).toBe(1);
      expect(line.subCalls).toBe(0);
      // The RLM's runs keep their traces in the store; the baseline is one plain call.
      if (line.variant === 'direct') expect(line.runId).toBeUndefined();
      else expect(line.runId).toMatch(/^\d{8}-\d{6}-[0-9a-f]+$/);
    }
    // The summary printed is the summary of the file.
    const summary = summarizeEval(lines);
    const sonnet = summary.variants.find((variant) => variant.variant === 'sonnet')!;
    expect(summaryRow(result.stdout, 'sonnet')).toContain(
      `$${Number(sonnet.costPerItemUsd!.toPrecision(4))}`,
    );
    // The baseline sent only the contexts that fit: 5 requests.
    const direct = server!.requests.filter((request) =>
      systemOf(request.body as FakeMessagesRequest).includes(
        'Answer the question from the context',
      ),
    );
    expect(direct).toHaveLength(5);
  });

  test('SIGKILL mid-eval, then the same command: the scores kept, each pair once, only the rest asked', async () => {
    await startEvalServer({ delayMs: 200 });
    const count = 8;
    const directory = await makeDataset('killed', count);
    const args = ['eval', 'data.jsonl', '-o', 'results.jsonl', '--concurrency', '2', '--no-store'];
    const killed = await runRlm(args, directory, (stderr, kill) => {
      if (/\[3\/8\]/.test(stderr)) kill('SIGKILL');
    });
    expect(killed.signal).toBe('SIGKILL');
    const before = await readLines(directory);
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(before.length).toBeLessThan(count);
    const requestsBefore = server!.requests.length;

    const rerun = await runRlm(args, directory);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain(
      `rlm: ${before.length} of ${count} item runs are already in results.jsonl`,
    );
    const after = await readLines(directory);
    // Each item once; the lines written before the kill are there as they were.
    expect(after.map((line) => line.id).sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.every((line) => line.score === 1)).toBe(true);
    const askedAgain = server!.requests
      .slice(requestsBefore)
      .map((request) => questionOf(request.body as FakeMessagesRequest));
    expect(new Set(askedAgain)).toEqual(
      new Set(
        Array.from({ length: count }, (_, index) => String(index + 1)).filter(
          (id) => !before.some((line) => String(line.id) === id),
        ),
      ),
    );
    expect(summaryRow(rerun.stdout, 'rlm')).toMatch(/^rlm\s+8\s+1\.000\s+0\.676–1\.000/);
  });

  test('bad lines are reported and skipped; an unknown scorer is a usage error', async () => {
    await startEvalServer();
    const directory = await makeDataset('bad-lines', 2, {
      extraLines: [
        JSON.stringify({ id: 3, query: 'Question 3?' }),
        JSON.stringify({ id: 4, query: 'Question 4?', context: 'missing.txt', expected: 'x' }),
        '{"id": 5,',
      ],
    });
    const result = await runRlm(
      ['eval', 'data.jsonl', '-o', 'results.jsonl', '--no-store'],
      directory,
    );
    expect(result.code).toBe(1);
    const reported = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('rlm: data.jsonl:'));
    expect(reported).toEqual([
      'rlm: data.jsonl:3: id 3 has no "expected": add the answer it should get, e.g. "expected": "42"; skipped',
      expect.stringMatching(/^rlm: data\.jsonl:4: id 4: no context file .*missing\.txt; skipped$/),
      expect.stringMatching(/^rlm: data\.jsonl:5: not valid JSON; .*; skipped$/),
    ]);
    expect((await readResults(directory)).map((line) => line.id)).toEqual(
      expect.arrayContaining([1, 2]),
    );

    const requests = server!.requests.length;
    const unknown = await runRlm(['eval', 'data.jsonl', '--scorer', 'fuzzy'], directory);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'rlm: unknown scorer "fuzzy": use exact, contains, number, f1, regex, json, judge, or a module path such as ./my-scorer.mjs\n',
    );
    expect(server!.requests).toHaveLength(requests);
  });

  test('an item whose context or context_dir lies outside --context-root fails saying why; the others run', async () => {
    await startEvalServer();
    const outside = await makeTree('eval-outside', { 'secret.txt': 'the answer is hunter2.' });
    const directory = await makeDataset('eval-confined', 1, {
      extraLines: [
        JSON.stringify({
          id: 2,
          query: 'Question 2?',
          context: '/proc/self/environ',
          expected: 'x',
        }),
        JSON.stringify({ id: 3, query: 'Question 3?', context_dir: outside, expected: 'x' }),
      ],
    });
    const result = await runRlm(
      ['eval', 'data.jsonl', '-o', 'results.jsonl', '--no-store'],
      directory,
    );
    expect(result.code, result.stderr).toBe(1);
    const lines = await readLines(directory);
    const errorOf = (id: number) =>
      JSON.stringify(lines.filter((line) => line.id === id).map((line) => line.error));
    expect(errorOf(2)).toMatch(/\/proc\/self\/environ is a system file/);
    expect(errorOf(3)).toMatch(/eval-outside is outside the context root/);
    expect(lines.filter((line) => line.id === 1 && line.error === undefined)).toHaveLength(1);
    const sent = JSON.stringify(server!.requests);
    expect(sent).not.toContain('hunter2');
    expect(sent).not.toContain('ANTHROPIC_API_KEY');
  });

  test('a scorer module that throws or hangs marks those items; the rerun scores them again without the model', async () => {
    await startEvalServer();
    const directory = await makeDataset('scorer-module', 4);
    await writeFile(
      path.join(directory, 'my-scorer.mjs'),
      `export default ({ id, answer, expected }) => {
        if (id === 2) throw new Error('cannot score item 2');
        if (id === 3) for (;;) {}
        return answer === expected;
      };`,
    );
    const args = ['eval', 'data.jsonl', '--scorer', './my-scorer.mjs', '--scorer-timeout', '2s'];
    const first = await runRlm([...args, '-o', 'results.jsonl', '--no-store'], directory);
    expect(first.code).toBe(0);
    const lines = await readResults(directory);
    const byId = new Map(lines.map((line) => [line.id, line]));
    expect(byId.get(1)?.score).toBe(1);
    expect(byId.get(2)?.score).toBeNull();
    expect(byId.get(2)?.scoreFailure).toEqual({
      kind: 'threw',
      message: 'the scorer failed: it threw Error: cannot score item 2',
    });
    expect(byId.get(3)?.scoreFailure?.kind).toBe('timed-out');
    expect(byId.get(4)?.score).toBe(1);
    expect(first.stderr).toMatch(
      /rlm: id 3 \(rlm\): not scored: the scorer took longer than 2000 ms/,
    );
    expect(summaryRow(first.stdout, 'rlm')).toMatch(/^rlm\s+4\s+1\.000\s/);
    expect(first.stdout).toContain('rlm: 2 not scored (the scorer failed; left out of the mean)');

    // A fixed scorer: the kept answers are scored again, no model is asked.
    await writeFile(
      path.join(directory, 'my-scorer.mjs'),
      'export default ({ answer, expected }) => (answer === expected ? 1 : 0);',
    );
    const requests = server!.requests.length;
    const second = await runRlm([...args, '-o', 'results.jsonl', '--no-store'], directory);
    expect(second.code).toBe(0);
    expect(server!.requests).toHaveLength(requests);
    const rescored = (await readResults(directory)).map((line) => [line.id, line.score]);
    expect(rescored.sort(([a], [b]) => Number(a) - Number(b))).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 1],
    ]);
  });

  test('the judge grades with its own model and cost; an unparseable verdict marks the item only', async () => {
    await startEvalServer({
      judge: (question) =>
        question === '2'
          ? fakeText('It looks fine to me.')
          : fakeText('{"score": 1, "reason": "same"}'),
    });
    const directory = await makeDataset('judge', 3);
    const result = await runRlm(
      [
        'eval',
        'data.jsonl',
        '--scorer',
        'judge',
        '--judge-model',
        'anthropic:claude-haiku-4-5',
        '--judge-rubric',
        'Score 1 when the answer names the same thing.',
        '-o',
        'results.jsonl',
        '--no-store',
      ],
      directory,
    );
    expect(result.code).toBe(0);
    const lines = await readResults(directory);
    const two = lines.find((line) => line.id === 2)!;
    expect(two.score).toBeNull();
    expect(two.scoreFailure?.kind).toBe('judge-unparseable');
    for (const line of lines) {
      expect(line.scorer).toBe('judge');
      expect(line.judge?.costUsd).toBeGreaterThan(0);
      // The judge's cost is apart from the run's.
      expect(line.costUsd).toBe(line.usage.costUsd);
    }
    expect(lines.find((line) => line.id === 1)).toMatchObject({ score: 1, note: 'same' });
    const judged = server!.requests.filter((request) =>
      systemOf(request.body as FakeMessagesRequest).includes('You grade answers'),
    );
    expect(judged).toHaveLength(3);
    expect((judged[0]!.body as FakeMessagesRequest).model).toBe('claude-haiku-4-5');
    expect(systemOf(judged[0]!.body as FakeMessagesRequest)).toContain(
      'Rubric: Score 1 when the answer names the same thing.',
    );
    expect(result.stdout).toMatch(/rlm: 1 not scored .* · judge cost \$0\.\d+ \(apart\)/);
  });

  test('the variants of an item keep apart: one does not see the artifacts another stored for the same query and context', async () => {
    server = await serve({
      handler: (request) => {
        if (request.model === 'claude-sonnet-4-5') {
          return fakeText(
            request.messages.length === 1
              ? '```repl\nawait store("variant_a_notes", "kept by a")\n```'
              : 'FINAL(a done)',
          );
        }
        // The artifact catalog is in the system prompt: another variant's store would show.
        return fakeText(
          `FINAL(${systemOf(request).includes('variant_a_notes') ? 'saw the notes of a' : 'clean'})`,
        );
      },
    });
    const directory = await makeDataset('namespaced', 2);
    const result = await runRlm(
      [
        ...evalTwoVariants,
        // One job at a time: each item's variant a has stored before its variant b starts.
        '--concurrency',
        '1',
        '--store',
        'store.sqlite',
        '-o',
        'results.jsonl',
      ],
      directory,
    );
    expect(result.code).toBe(0);
    const lines = await readResults(directory);
    expect(lines.map((line) => [line.id, line.variant, line.answer])).toEqual([
      [1, 'a', 'a done'],
      [1, 'b', 'clean'],
      [2, 'a', 'a done'],
      [2, 'b', 'clean'],
    ]);
  });
});

describe('rlm eval --queue and rlm worker (built bin, real redis-server)', () => {
  let redis: RedisServer | undefined;
  afterEach(async () => {
    await redis?.stop();
    redis = undefined;
  });

  /** Starts `rlm worker` on the queue in `directory`, against the fake API. */
  function startWorker(
    directory: string,
    args: readonly string[],
    onStderr?: (stderr: string, kill: (signal: NodeJS.Signals) => void) => void,
  ) {
    return startBuiltRlm(['worker', '--queue', redis!.url, ...args], {
      cwd: directory,
      baseURL: server!.url,
      onStderr,
    });
  }

  /** A line without what differs from run to run: its time and its trace's id. */
  function comparable(line: EvalResult): Omit<EvalResult, 'durationMs' | 'runId'> {
    const { durationMs: _durationMs, runId: _runId, ...rest } = line;
    return rest;
  }

  function byPair(lines: readonly EvalResult[]): EvalResult[] {
    return [...lines].sort(
      (a, b) => a.variant.localeCompare(b.variant) || Number(a.id) - Number(b.id),
    );
  }

  test('two variants and the baseline on workers, one SIGKILLed mid-job: each variant asks its own model, nothing is lost, the lines are a local eval’s', async () => {
    redis = await startRedisServer();
    await startEvalServer({
      delayMs: 150,
      // The local eval and the workers ask one fake API: with its cache, the workers' prompts
      // would read what the local eval's wrote, and their usage and cost differ for that alone.
      cacheMinimumTokens: Number.MAX_SAFE_INTEGER,
      rlm: (model, question) =>
        `${model === 'claude-haiku-4-5' && Number(question) % 2 === 0 ? 'a wrong reply' : `answer ${question}`} from ${model}`,
    });
    const count = 6;
    const directory = await makeDataset('queued', count, { largeFrom: 5 });
    const evalArgs = [
      'eval',
      'data.jsonl',
      '--scorer',
      'contains',
      '--model',
      'anthropic:claude-haiku-4-5',
      '--variant',
      'a=--model anthropic:claude-sonnet-4-5',
      '--variant',
      'b=--model anthropic:claude-haiku-4-5 --max-iterations 5',
      '--baseline',
      'direct',
      '--baseline-window',
      '4k',
    ];
    // The same store as the workers': what the prompt says of it is the same.
    const local = await runRlm([...evalArgs, '-o', 'local.jsonl', '--store', redis.url], directory);
    expect(local.code).toBe(0);
    const localRequests = server!.requests.length;

    // The workers' own --model is neither variant's: a request for it would be a worker's flags.
    const workerArgs = [
      '--store',
      redis.url,
      '--concurrency',
      '2',
      '--lock-duration',
      '2s',
      '--model',
      'anthropic:claude-opus-4-1',
    ];
    /** The job the first worker was running when it was killed. */
    let killedMidJob: string | undefined;
    const victim = startWorker(directory, workerArgs, (stderr, kill) => {
      const started = /id ("[^"]+") started/.exec(stderr);
      if (killedMidJob === undefined && started) {
        killedMidJob = started[1];
        kill('SIGKILL');
      }
    });
    await victim.stderrContains('Ctrl-C to stop');
    const queued = startBuiltRlm([...evalArgs, '--queue', redis.url, '-o', 'queued.jsonl'], {
      cwd: directory,
      baseURL: server!.url,
    });
    const killed = await victim.done;
    const survivors = [startWorker(directory, workerArgs), startWorker(directory, workerArgs)];
    const result = await queued.done;
    for (const worker of survivors) worker.kill('SIGTERM');
    const stopped = await Promise.all(survivors.map((worker) => worker.done));

    expect(result.stderr).toContain(`rlm: batch done: ${count * 3} answered, 0 failed`);
    expect(result.code).toBe(0);
    expect(killed.signal).toBe('SIGKILL');
    expect(killedMidJob).toBeDefined();
    expect(killed.stderr).not.toContain(`id ${killedMidJob} answered`);
    expect(stopped.map((worker) => worker.stderr).join('')).toContain(
      `id ${killedMidJob} answered`,
    );
    expect(stopped.map((worker) => worker.code)).toEqual([143, 143]);

    // Each pair once, and the same lines as the local eval: answers, scores, tokens, costs,
    // steps, context sizes, what did not fit.
    const lines = await readResults(directory, 'queued.jsonl');
    expect(lines).toHaveLength(count * 3);
    expect(byPair(lines).map(comparable)).toEqual(
      byPair(await readResults(directory, 'local.jsonl')).map(comparable),
    );
    expect(summaryRow(result.stdout, 'a')).toMatch(/^a\s+6\s+1\.000\s/);
    expect(summaryRow(result.stdout, 'b')).toMatch(/^b\s+6\s+0\.500\s/);
    expect(summaryRow(result.stdout, 'direct')).toMatch(/^direct\s+6\s+0\.667\s/);
    for (const line of lines) {
      if (line.variant === 'a') expect(line.answer).toMatch(/ from claude-sonnet-4-5$/);
      if (line.variant === 'b') expect(line.answer).toMatch(/ from claude-haiku-4-5$/);
      // The workers kept each RLM run's trace in their store.
      if (line.variant !== 'direct') expect(line.runId).toMatch(/^\d{8}-\d{6}-[0-9a-f]+$/);
    }
    const asked = server!.requests
      .slice(localRequests)
      .map((request) => request.body as FakeMessagesRequest);
    const direct = asked.filter((request) =>
      systemOf(request).includes('Answer the question from the context'),
    );
    expect(new Set(direct.map((request) => request.model))).toEqual(new Set(['claude-haiku-4-5']));
    // Each variant asked its own model; no request used the workers' --model.
    expect(new Set(asked.map((request) => request.model))).toEqual(
      new Set(['claude-sonnet-4-5', 'claude-haiku-4-5']),
    );
    // The baseline's progress line says what did not fit.
    expect(result.stderr).toMatch(/id "5 \(direct\)" did not fit the model's window/);
  }, 180_000);

  test('a variant’s job taken over from a killed worker resumes its own checkpoint; the other variant of the item does not', async () => {
    redis = await startRedisServer();
    const queue = redis.url;
    let killFirstWorker: () => void = () => {};
    const variantA = killedAfterCheckpoint(queue, () => killFirstWorker());
    server = await serve({
      handler: (request) =>
        // Variant b: a run of its own starts afresh; one resumed from a's checkpoint would come
        // back with a's transcript.
        request.model === 'claude-haiku-4-5'
          ? fakeText(request.messages.length === 1 ? 'FINAL(b afresh)' : "FINAL(b resumed a's run)")
          : variantA(request),
    });
    const directory = await makeDataset('taken-over', 1);
    const workerArgs = ['--store', queue, '--concurrency', '1', '--lock-duration', '2s'];
    const first = startWorker(directory, workerArgs);
    killFirstWorker = () => first.child.kill('SIGKILL');
    await first.stderrContains('Ctrl-C to stop');
    // Variant a's job is queued first: the first worker takes it, b waits.
    const evaluation = startBuiltRlm(
      [...evalTwoVariants, '--queue', queue, '-o', 'results.jsonl'],
      { cwd: directory, baseURL: server.url },
    );
    expect((await first.done).signal).toBe('SIGKILL');
    const second = startWorker(directory, workerArgs);
    const finished = await evaluation.done;
    second.kill('SIGTERM');
    await second.done;
    expect(finished.code).toBe(0);
    const lines = await readResults(directory);
    // 42 needs `half` from step 1, which the second worker never ran: it came from a's
    // checkpoint. b, run after that checkpoint was stored, started afresh.
    expect(lines.map((line) => [line.variant, line.answer]).sort()).toEqual([
      ['a', 42],
      ['b', 'b afresh'],
    ]);
    const asked = server.requests.map((request) => request.body as FakeMessagesRequest);
    const firstSteps = asked.filter(
      (request) => request.model === 'claude-sonnet-4-5' && request.messages.length === 1,
    );
    expect(firstSteps).toHaveLength(1);
    const hung = asked.findIndex(
      (request) => request.model === 'claude-sonnet-4-5' && request.messages.length === 3,
    );
    expect(asked.findIndex((request) => request.model === 'claude-haiku-4-5')).toBeGreaterThan(
      hung,
    );
  }, 120_000);

  test('no worker: the eval stops after --stall-timeout and says why; a worker and the same command collect the rest, within the worker’s --max-cost', async () => {
    redis = await startRedisServer();
    await startEvalServer();
    const directory = await makeDataset('stalled', 3);
    const args = [
      'eval',
      'data.jsonl',
      '--queue',
      redis.url,
      '--variant',
      'capped=--max-cost 2',
      '-o',
      'results.jsonl',
    ];
    const stalled = await runRlm([...args, '--stall-timeout', '2s'], directory);
    expect(stalled.code).toBe(1);
    expect(stalled.stderr).toMatch(
      /^rlm: no worker made progress on this batch for .* \(--stall-timeout\): 3 jobs not answered \(ids "1 \(capped\)", "2 \(capped\)", "3 \(capped\)"\): no rlm worker is connected to the queue; start one: rlm worker --queue redis:\/\/127\.0\.0\.1:\d+; they stay on the queue/m,
    );
    expect(server!.requests).toHaveLength(0);

    const worker = startWorker(directory, ['--no-store', '--max-cost', '0.5']);
    await worker.stderrContains('Ctrl-C to stop');
    // The same command, with the default --stall-timeout: it collects the jobs it queued.
    const collected = await runRlm(args, directory);
    expect(collected.code).toBe(0);
    expect(collected.stderr).toContain(
      "rlm: variant capped: a worker ran it within its own lower limits (--max-cost), not the variant's",
    );
    const lines = await readResults(directory);
    expect(lines.map((line) => [line.id, line.score]).sort()).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
    ]);

    // A job whose settings reach past the allow-list fails alone, without a model call.
    const queue = new Queue(batchQueueName, { connection: parseQueueUrl(redis.url) });
    const requests = server!.requests.length;
    await queue.add(
      'query',
      {
        id: 'hostile',
        query: 'Question 9?',
        context: undefined,
        run: { kind: 'rlm', model: 'anthropic:claude-haiku-4-5', toolsModule: '/tmp/evil.mjs' },
      },
      { jobId: 'hostile-job' },
    );
    await queue.close();
    let kept = '';
    while (kept === '') {
      kept = await redisCli(redis.url, 'GET', queueKeys.result('hostile-job'));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(JSON.parse(kept)).toMatchObject({
      id: 'hostile',
      error: {
        name: 'QueuedRunSettingsError',
        message: expect.stringContaining('"toolsModule" is not a setting a job may carry'),
      },
    });
    expect(server!.requests).toHaveLength(requests);
    worker.kill('SIGTERM');
    const stopped = await worker.done;
    expect(stopped.code).toBe(143);
    expect(stopped.stderr).toMatch(
      /id "1 \(capped\)": it asks for more than this worker allows \(--max-cost\): this worker's limits apply/,
    );
  }, 120_000);

  test('--max-batch-cost: once spent, the waiting jobs are taken off the queue and reported as not run', async () => {
    redis = await startRedisServer();
    await startEvalServer({ delayMs: 100 });
    const count = 8;
    const directory = await makeDataset('capped', count);
    const worker = startWorker(directory, ['--no-store', '--concurrency', '1']);
    // Each item costs about $0.0014: the cap is passed after two.
    const result = await runRlm(
      [
        'eval',
        'data.jsonl',
        '--queue',
        redis.url,
        '-o',
        'results.jsonl',
        '--max-batch-cost',
        '0.002',
      ],
      directory,
    );
    worker.kill('SIGTERM');
    await worker.done;
    expect(result.code).toBe(1);
    const answered = Number(/batch done: (\d+) answered/.exec(result.stderr)?.[1]);
    const notRun = Number(/, (\d+) not run/.exec(result.stderr)?.[1]);
    expect(answered).toBeGreaterThanOrEqual(2);
    expect(notRun).toBeGreaterThan(0);
    expect(answered + notRun).toBe(count);
    expect(await readResults(directory)).toHaveLength(answered);
  }, 120_000);
});
