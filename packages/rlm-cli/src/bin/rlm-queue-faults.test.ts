import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type FakeMessagesRequest, fakeError, fakeText } from '@rlm/anthropic/testing';
import { type RedisServer, startRedisServer } from '@rlm/artifacts/testing';
import { afterEach, describe, expect, test } from 'vitest';
import { redisCli } from '../test-support/redis-cli.js';
import { type BuiltRlmProcess, startBuiltRlm } from './start-built-rlm.js';
import { useBuiltRlmWorkspace } from './use-built-rlm-workspace.js';

/**
 * `rlm batch --queue` and `rlm worker` against Redis failing under them: a real `redis-server`
 * restarted without persistence, stopped, out of memory; the built bin as real processes.
 */

const { root, serve } = useBuiltRlmWorkspace('rlm-cli-queue-faults-');
const servers: RedisServer[] = [];
const workers: BuiltRlmProcess[] = [];

afterEach(async () => {
  for (const worker of workers.splice(0)) worker.kill('SIGKILL');
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

async function startRedis(args: readonly string[] = []): Promise<RedisServer> {
  const server = await startRedisServer({ args });
  servers.push(server);
  return server;
}

function startWorker(args: readonly string[], baseURL: string): BuiltRlmProcess {
  const worker = startBuiltRlm(['worker', ...args], { cwd: root, baseURL });
  workers.push(worker);
  return worker;
}

/** `Question <n>?` of a request's first message. */
function questionOf(request: FakeMessagesRequest): string | undefined {
  return /Question ([\w-]+)\?/.exec(JSON.stringify(request.messages[0]))?.[1];
}

async function writeJobs(name: string, count: number): Promise<void> {
  const lines = Array.from({ length: count }, (_, index) =>
    JSON.stringify({ id: index + 1, query: `Question ${index + 1}?` }),
  );
  await writeFile(path.join(root, name), `${lines.join('\n')}\n`);
}

interface ResultLine {
  readonly id: number | string;
  readonly answer?: unknown;
  readonly error?: { readonly name: string; readonly message: string };
  readonly storeFailures?: { readonly count: number; readonly first: { readonly message: string } };
}

async function readResults(name: string): Promise<ResultLine[]> {
  const text = await readFile(path.join(root, name), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ResultLine);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The text of a request's last message: the output of the code it ran, on a second turn. */
function lastMessageOf(request: FakeMessagesRequest): string {
  return JSON.stringify(request.messages.at(-1)?.content ?? '');
}

/** Occurrences of `text` in `haystack`. */
function count(haystack: string, text: string): number {
  return haystack.split(text).length - 1;
}

describe('rlm batch --queue and rlm worker when Redis fails (built bin, real redis-server)', () => {
  test('Redis restarted without persistence mid-batch: the running jobs keep their results, the lost ones are queued again, every id answered once', async () => {
    const redis = await startRedis();
    const server = await serve({
      handler: async (request) => {
        await sleep(800);
        return fakeText(`FINAL(answer ${questionOf(request)})`);
      },
    });
    await writeJobs('restart.jsonl', 12);
    // Restart Redis (nothing saved) once 4 jobs run, across both workers.
    const started = [0, 0];
    let restart: Promise<void> | undefined;
    const workerArgs = ['worker', '--queue', redis.url, '--no-store', '--concurrency', '2'];
    for (const index of [0, 1]) {
      const worker = startBuiltRlm(workerArgs, {
        cwd: root,
        baseURL: server.url,
        onStderr: (stderr) => {
          started[index] = (stderr.match(/ started$/gm) ?? []).length;
          if (started[0]! + started[1]! >= 4) restart ??= redis.restart();
        },
      });
      workers.push(worker);
    }
    const batch = await startBuiltRlm(
      ['batch', 'restart.jsonl', '--queue', redis.url, '--out', 'restart-results.jsonl'],
      { cwd: root, baseURL: server.url },
    ).done;
    await restart;
    expect(batch.stderr).toContain('rlm: batch done: 12 answered, 0 failed');
    expect(batch.code).toBe(0);
    // The 8 jobs that waited were lost with the queue, and queued again.
    expect(batch.stderr).toMatch(
      /the queue redis:\/\/127\.0\.0\.1:\d+ lost \d+ unanswered jobs? \(was Redis restarted without persistence\?\); queued again: ids /,
    );
    const lines = await readResults('restart-results.jsonl');
    expect(lines.map((line) => line.id).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 12 }, (_, index) => index + 1),
    );
    for (const line of lines) expect(line.answer).toBe(`answer ${line.id}`);
    // The 4 jobs running at the restart kept their results: no question was asked twice.
    const asked = server.requests.map((request) => questionOf(request.body as never));
    expect(asked).toHaveLength(12);
    expect(new Set(asked).size).toBe(12);
  }, 180_000);

  test('no worker: after --stall-timeout the batch names the ids and the cause and exits 1; a worker and a rerun collect them', async () => {
    const redis = await startRedis();
    const server = await serve({
      handler: (request) => fakeText(`FINAL(answer ${questionOf(request)})`),
    });
    await writeJobs('stalled.jsonl', 3);
    const args = ['batch', 'stalled.jsonl', '--queue', redis.url, '-o', 'stalled-results.jsonl'];
    const stalled = await startBuiltRlm([...args, '--stall-timeout', '2s'], {
      cwd: root,
      baseURL: server.url,
    }).done;
    expect(stalled.code).toBe(1);
    expect(stalled.stderr).toMatch(
      /^rlm: no worker made progress on this batch for \d+\.\d s \(--stall-timeout\): 3 jobs not answered \(ids 1, 2, 3\): no rlm worker is connected to the queue; start one: rlm worker --queue redis:\/\/127\.0\.0\.1:\d+; they stay on the queue: rerun the same command to collect their results$/m,
    );
    expect(stalled.stderr).toContain('rlm: batch done: 0 answered, 0 failed, 3 not answered');
    startWorker(['--queue', redis.url, '--no-store'], server.url);
    const rerun = await startBuiltRlm(args, { cwd: root, baseURL: server.url }).done;
    expect(rerun.code).toBe(0);
    expect((await readResults('stalled-results.jsonl')).map((line) => line.answer).sort()).toEqual([
      'answer 1',
      'answer 2',
      'answer 3',
    ]);
    expect(server.requests).toHaveLength(3);
  }, 120_000);

  test('Redis gone for good: the batch says so within --stall-timeout, naming the ids, and exits 1', async () => {
    const redis = await startRedis();
    const server = await serve({
      handler: async (request) => {
        if (questionOf(request) === '1') return fakeText('FINAL(answer 1)');
        // The other jobs never finish while Redis is there to take their results.
        await redis.stop();
        return { kind: 'hang' };
      },
    });
    await writeJobs('gone.jsonl', 2);
    startWorker(['--queue', redis.url, '--no-store', '--concurrency', '1'], server.url);
    const batch = await startBuiltRlm(
      [
        'batch',
        'gone.jsonl',
        '--queue',
        redis.url,
        '-o',
        'gone-results.jsonl',
        '--stall-timeout',
        '3s',
      ],
      { cwd: root, baseURL: server.url },
    ).done;
    expect(batch.code).toBe(1);
    expect(batch.stderr).toMatch(
      /^rlm: no worker made progress on this batch for .* \(--stall-timeout\): 1 job not answered \(ids 2\): the queue redis:\/\/127\.0\.0\.1:\d+ cannot be reached since .*; they stay on the queue: rerun the same command to collect their results$/m,
    );
    expect((await readResults('gone-results.jsonl')).map((line) => line.id)).toEqual([1]);
  }, 120_000);
});

describe('an unreachable store or queue (built bin, real redis-server)', () => {
  test('refused port, wrong database, TLS to a plain server: one line naming the URL and the cause, exit 2, no model call, for runs, batches and workers', async () => {
    const redis = await startRedis();
    const closed = `redis://127.0.0.1:${(await startRedis()).port}`;
    await servers.at(-1)!.stop();
    const server = await serve({ handler: () => fakeText('FINAL(never)') });
    await writeJobs('unreachable.jsonl', 1);
    const cases = [
      { url: closed, cause: /ECONNREFUSED/ },
      { url: `${redis.url}/99`, cause: /ERR DB index is out of range/ },
      {
        url: redis.url.replace('redis:', 'rediss:'),
        cause: /the URL asks for TLS.*use redis:\/\//,
      },
    ];
    const quick = ['--connect-timeout', '1s'];
    for (const { url, cause } of cases) {
      const shown = url.replaceAll('.', '\\.').replaceAll('/', '\\/');
      const store = new RegExp(
        `^rlm: cannot connect to the Redis store at ${shown}: .*; start Redis, fix --store \\(or --connect-timeout\\), or pass --no-store$`,
      );
      const queue = new RegExp(
        `^rlm: cannot reach the queue ${shown}: .*; start Redis or fix --queue$`,
      );
      const runs = [
        { args: ['Question 1?', '--store', url, ...quick], line: store },
        { args: ['batch', 'unreachable.jsonl', '--store', url, ...quick], line: store },
        { args: ['batch', 'unreachable.jsonl', '--queue', url, ...quick], line: queue },
        { args: ['worker', '--queue', url, ...quick], line: queue },
        { args: ['worker', '--queue', redis.url, '--store', url, ...quick], line: store },
      ];
      for (const { args, line } of runs) {
        const result = await startBuiltRlm(args, { cwd: root, baseURL: server.url }).done;
        const lines = result.stderr.split('\n').filter((text) => text !== '');
        expect({ args, code: result.code, lines }).toEqual({
          args,
          code: 2,
          lines: [expect.stringMatching(line)],
        });
        expect(lines[0]).toMatch(cause);
      }
    }
    expect(server.requests).toHaveLength(0);
  }, 180_000);
});

describe('Redis out of memory, quotas and expiry (built bin, real redis-server)', () => {
  test('a store that refuses writes for memory: every result records it, the batch exits 3 (--store-errors warn: 0), the worker says it once and rate-limits the rest', async () => {
    const queue = await startRedis();
    // Every write is past maxmemory: the server is full from the start.
    const store = await startRedis(['--maxmemory', '1', '--maxmemory-policy', 'noeviction']);
    const server = await serve({
      handler: (request) =>
        request.messages.length === 1
          ? fakeText(
              '```repl\ntry { await store("note", "a note") } catch (error) { print("refused") }\n```',
            )
          : fakeText(`FINAL(answer ${questionOf(request)})`),
    });
    await writeJobs('full.jsonl', 6);
    await writeJobs('full-warn.jsonl', 2);
    const worker = startWorker(
      ['--queue', queue.url, '--store', store.url, '--concurrency', '3'],
      server.url,
    );
    const batch = await startBuiltRlm(
      ['batch', 'full.jsonl', '--queue', queue.url, '-o', 'full-results.jsonl'],
      { cwd: root, baseURL: server.url },
    ).done;
    expect(batch.code).toBe(3);
    expect(batch.stderr).toContain('rlm: batch done: 6 answered, 0 failed');
    expect(batch.stderr).toMatch(
      /^rlm: every job answered, but the store failed during 6 of them \(first: \w+: .*OOM command not allowed.*\), so their state was not fully saved \(storeFailures in their result lines\); fix the store and rerun them, or pass --store-errors warn$/m,
    );
    const lines = await readResults('full-results.jsonl');
    expect(lines).toHaveLength(6);
    for (const line of lines) {
      expect(line.answer).toBe(`answer ${line.id}`);
      expect(line.storeFailures?.count).toBeGreaterThanOrEqual(1);
      expect(line.storeFailures?.first.message).toContain('OOM command not allowed');
    }
    const warned = await startBuiltRlm(
      [
        'batch',
        'full-warn.jsonl',
        '--queue',
        queue.url,
        '-o',
        'full-warn-results.jsonl',
        '--store-errors',
        'warn',
      ],
      { cwd: root, baseURL: server.url },
    ).done;
    expect(warned.code).toBe(0);
    expect((await readResults('full-warn-results.jsonl')).every((line) => line.storeFailures)).toBe(
      true,
    );
    // Said once; each cause's repeats are counted, then summed up when its interval ends.
    await worker.stderrContains('more like');
    const stderr = await new Promise<string>((resolve) => {
      worker.child.kill('SIGTERM');
      void worker.done.then((result) => resolve(result.stderr));
    });
    expect(count(stderr, 'refuses writes: it is out of memory')).toBe(1);
    expect(stderr).toContain(
      `rlm: worker: Redis at ${store.url} refuses writes: it is out of memory (maxmemory)`,
    );
    const putLines = stderr.split('\n').filter((line) => line.includes('the store failed (put)'));
    expect(putLines.length).toBeGreaterThanOrEqual(1);
    expect(putLines.length).toBeLessThan(8);
    expect(stderr).toMatch(/^rlm: worker: \d+ more like ".*" in the last 10 s$/m);
  }, 180_000);

  test("the queue's Redis refuses a result for memory: the worker keeps it, says so once, and writes it when memory is back", async () => {
    const queue = await startRedis();
    let filled = false;
    const server = await serve({
      handler: async (request) => {
        if (!filled) {
          filled = true;
          await redisCli(queue.url, 'CONFIG', 'SET', 'maxmemory', '1');
        }
        return fakeText(`FINAL(answer ${questionOf(request)})`);
      },
    });
    await writeJobs('oom.jsonl', 1);
    const worker = startWorker(['--queue', queue.url, '--no-store'], server.url);
    const batch = startBuiltRlm(
      ['batch', 'oom.jsonl', '--queue', queue.url, '-o', 'oom-results.jsonl'],
      {
        cwd: root,
        baseURL: server.url,
      },
    );
    await worker.stderrContains('the queue refused its result');
    await redisCli(queue.url, 'CONFIG', 'SET', 'maxmemory', '0');
    const done = await batch.done;
    expect(done.code).toBe(0);
    expect((await readResults('oom-results.jsonl')).map((line) => line.answer)).toEqual([
      'answer 1',
    ]);
    await worker.stderrContains('its kept result is written to the queue now');
    worker.kill('SIGTERM');
    const { stderr } = await worker.done;
    expect(count(stderr, 'refuses writes: it is out of memory')).toBe(1);
    expect(stderr).toMatch(
      /^rlm: worker: id 1: the queue refused its result \(OOM command not allowed.*\); keeping it and trying again$/m,
    );
    expect(server.requests).toHaveLength(1);
  }, 120_000);

  test('--max-batch-artifact-bytes bounds the whole batch across workers; keys of a Redis store and results expire (--artifact-ttl)', async () => {
    const redis = await startRedis();
    const server = await serve({
      handler: (request) =>
        request.messages.length === 1
          ? fakeText(
              '```repl\ntry { await store("big", "x".repeat(600)); print("stored") } catch (error) { print("refused: " + error.message) }\n```',
            )
          : fakeText(
              lastMessageOf(request).includes('output:\\nrefused')
                ? `FINAL(refused ${/--max-batch-artifact-bytes/.test(lastMessageOf(request))})`
                : 'FINAL(stored)',
            ),
    });
    await writeJobs('quota.jsonl', 4);
    const workerArgs = ['--queue', redis.url, '--store', redis.url, '--artifact-ttl', '1h'];
    startWorker(workerArgs, server.url);
    startWorker(workerArgs, server.url);
    const batch = await startBuiltRlm(
      [
        'batch',
        'quota.jsonl',
        '--queue',
        redis.url,
        '-o',
        'quota-results.jsonl',
        '--max-batch-artifact-bytes',
        '1000',
      ],
      { cwd: root, baseURL: server.url },
    ).done;
    expect(batch.code).toBe(0);
    const answers = (await readResults('quota-results.jsonl')).map((line) => line.answer).sort();
    expect(answers).toEqual(['refused true', 'refused true', 'refused true', 'stored']);
    const keys = (await redisCli(redis.url, '--scan', '--pattern', 'rlm*')).split('\n');
    expect(keys.some((key) => key.startsWith('rlm::record:'))).toBe(true);
    expect(keys.some((key) => key.startsWith('rlm:catalog:'))).toBe(true);
    expect(keys.filter((key) => key.startsWith('rlm-batch:result:'))).toHaveLength(4);
    for (const key of keys) {
      const ttl = Number(await redisCli(redis.url, 'PTTL', key));
      expect({ key, expires: ttl > 0 && ttl <= 3_600_000 }).toEqual({ key, expires: true });
    }
  }, 120_000);

  test('a worker refuses a query over its --max-query-chars, names each job in its retry notices, and cuts long ids', async () => {
    const redis = await startRedis();
    let refused = false;
    const server = await serve({
      handler: (request) => {
        if (questionOf(request) === 'retried' && !refused) {
          refused = true;
          return fakeError(429, { retryAfterSeconds: 1 });
        }
        return fakeText(`FINAL(answer ${questionOf(request)})`);
      },
    });
    const longId = `id-${'x'.repeat(10_000)}`;
    await writeFile(
      path.join(root, 'flags.jsonl'),
      `${[
        JSON.stringify({ id: 'long', query: `Question long? ${'q'.repeat(2000)}` }),
        JSON.stringify({ id: 'retried', query: 'Question retried?' }),
        JSON.stringify({ id: longId, query: 'Question long-id?' }),
      ].join('\n')}\n`,
    );
    const worker = startWorker(
      ['--queue', redis.url, '--no-store', '--max-query-chars', '1000'],
      server.url,
    );
    const batch = await startBuiltRlm(
      [
        'batch',
        'flags.jsonl',
        '--queue',
        redis.url,
        '-o',
        'flags-results.jsonl',
        '--max-query-chars',
        '5000',
      ],
      { cwd: root, baseURL: server.url },
    ).done;
    expect(batch.code).toBe(1);
    const lines = await readResults('flags-results.jsonl');
    expect(lines.find((line) => line.id === 'long')?.error).toEqual({
      name: 'QueryTooLongError',
      message:
        "the query has 2,015 characters, over this worker's --max-query-chars 1000; no model was called",
    });
    expect(lines.find((line) => line.id === longId)?.answer).toBe('answer long-id');
    worker.kill('SIGTERM');
    const { stderr } = await worker.done;
    expect(stderr).toContain(
      'rlm: worker: id "retried": the API answered 429 rate_limit_error; retrying in 1 s, as the API asked (attempt 2 of 3)',
    );
    expect(stderr).toContain(
      `rlm: worker: id "${longId.slice(0, 47)}…" (10,003 characters) started`,
    );
    for (const line of [...stderr.split('\n'), ...batch.stderr.split('\n')]) {
      expect(line.length).toBeLessThan(400);
    }
    expect(server.requests.every((request) => questionOf(request.body as never) !== 'long')).toBe(
      true,
    );
  }, 120_000);
});
