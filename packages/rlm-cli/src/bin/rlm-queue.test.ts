import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fakeText } from '@rlm/anthropic/testing';
import { freePort, type RedisServer, startRedisServer } from '@rlm/artifacts/testing';
import { afterEach, describe, expect, test } from 'vitest';
import { killedAfterCheckpoint } from '../test-support/killed-after-checkpoint.js';
import { startBuiltRlm, testAnthropicKey } from './start-built-rlm.js';
import { useBuiltRlmWorkspace } from './use-built-rlm-workspace.js';

/**
 * `rlm batch --queue` and `rlm worker` end to end: the built bin as real processes, a real
 * `redis-server` on a free port, and the fake Messages API.
 */

const { root, serve } = useBuiltRlmWorkspace('rlm-cli-queue-');
let redis: RedisServer | undefined;

afterEach(async () => {
  await redis?.stop();
  redis = undefined;
});

/** Starts `redis-server` on a free port, without persistence; resolves to its URL. */
async function startRedis(): Promise<string> {
  redis = await startRedisServer();
  return redis.url;
}

describe('rlm batch --queue and rlm worker (built bin, real redis-server)', () => {
  test('50 jobs over 3 workers, one SIGKILLed mid-job: every job answered exactly once', async () => {
    const queue = await startRedis();
    const server = await serve({
      handler: async (request) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        const question = /Question (\d+)\?/.exec(JSON.stringify(request.messages[0]))?.[1];
        return fakeText(`FINAL(answer ${question})`);
      },
    });
    const count = 50;
    const jobs = Array.from({ length: count }, (_, index) =>
      JSON.stringify({ id: index + 1, query: `Question ${index + 1}?` }),
    );
    await writeFile(path.join(root, 'queries.jsonl'), `${jobs.join('\n')}\n`);
    const workerArgs = [
      'worker',
      '--queue',
      queue,
      '--store',
      queue,
      '--concurrency',
      '2',
      '--lock-duration',
      '2s',
    ];
    const options = { cwd: root, baseURL: server.url };
    /** The id worker 1 was running when it was killed. */
    let killedMidJob: string | undefined;
    const victim = startBuiltRlm(workerArgs, {
      ...options,
      onStderr: (stderr, kill) => {
        const started = [...stderr.matchAll(/id (\d+) started/g)];
        if (killedMidJob === undefined && started.length >= 3) {
          killedMidJob = started.at(-1)![1];
          kill('SIGKILL');
        }
      },
    });
    const survivors = [startBuiltRlm(workerArgs, options), startBuiltRlm(workerArgs, options)];
    const batch = await startBuiltRlm(
      ['batch', 'queries.jsonl', '--queue', queue, '--out', 'results.jsonl'],
      options,
    ).done;
    const killed = await victim.done;
    for (const worker of survivors) worker.child.kill('SIGTERM');
    const stopped = await Promise.all(survivors.map((worker) => worker.done));

    expect(batch.stderr).toContain(`rlm: batch done: ${count} answered, 0 failed`);
    expect(batch.code).toBe(0);
    expect(killed.signal).toBe('SIGKILL');
    expect(killedMidJob).toBeDefined();
    // The killed worker never answered the job it held; a survivor took it over.
    expect(killed.stderr).not.toContain(`id ${killedMidJob} answered`);
    expect(stopped.map((worker) => worker.stderr).join('')).toContain(
      `id ${killedMidJob} answered`,
    );
    const lines = (await readFile(path.join(root, 'results.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; answer: string });
    expect(lines).toHaveLength(count);
    expect(new Set(lines.map((line) => line.id)).size).toBe(count);
    for (const line of lines) expect(line.answer).toBe(`answer ${line.id}`);
    // SIGTERM stops a worker cleanly once its running jobs end.
    expect(stopped.map((worker) => worker.code)).toEqual([143, 143]);

    // The same command again: every id is already answered; the queue is not asked.
    const again = await startBuiltRlm(
      ['batch', 'queries.jsonl', '--queue', queue, '--out', 'results.jsonl'],
      options,
    ).done;
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`rlm: ${count} ids are already answered in results.jsonl`);
  }, 120_000);

  test('a job taken over from a killed worker resumes from its checkpoint in the shared store', async () => {
    const queue = await startRedis();
    let killFirstWorker: () => void = () => {};
    const server = await serve({
      handler: killedAfterCheckpoint(queue, () => killFirstWorker()),
    });
    await writeFile(path.join(root, 'resume.jsonl'), '{"id": "r", "query": "Double it"}\n');
    const workerArgs = ['worker', '--queue', queue, '--store', queue, '--lock-duration', '2s'];
    const options = { cwd: root, baseURL: server.url };
    const first = startBuiltRlm(workerArgs, options);
    killFirstWorker = () => first.child.kill('SIGKILL');
    const batch = startBuiltRlm(
      ['batch', 'resume.jsonl', '--queue', queue, '--out', 'resumed.jsonl'],
      options,
    );
    expect((await first.done).signal).toBe('SIGKILL');
    const second = startBuiltRlm(workerArgs, options);
    const finished = await batch.done;
    second.child.kill('SIGTERM');
    await second.done;
    expect(finished.code).toBe(0);
    const [line] = (await readFile(path.join(root, 'resumed.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { id: string; answer: unknown });
    // 42 needs `half` from step 1, which the second worker never ran: it came from the checkpoint.
    expect(line).toMatchObject({ id: 'r', answer: 42 });
    const firstSteps = server.requests.filter(
      (request) => (request.body as { messages: unknown[] }).messages.length === 1,
    );
    expect(firstSteps).toHaveLength(1);
  }, 120_000);

  test('--max-batch-cost with a queue: once spent, the waiting jobs are removed and reported as not run', async () => {
    const queue = await startRedis();
    const server = await serve({
      handler: async (request) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const question = /Question (\d+)\?/.exec(JSON.stringify(request.messages[0]))?.[1];
        return fakeText(`FINAL(answer ${question})`);
      },
    });
    const count = 12;
    const jobs = Array.from({ length: count }, (_, index) =>
      JSON.stringify({ id: index + 1, query: `Question ${index + 1}?` }),
    );
    await writeFile(path.join(root, 'capped.jsonl'), `${jobs.join('\n')}\n`);
    const options = { cwd: root, baseURL: server.url };
    const worker = startBuiltRlm(
      ['worker', '--queue', queue, '--no-store', '--concurrency', '1'],
      options,
    );
    // Each job costs about $0.0014: the cap is passed after two.
    const batch = await startBuiltRlm(
      [
        'batch',
        'capped.jsonl',
        '--queue',
        queue,
        '-o',
        'capped-results.jsonl',
        '--max-batch-cost',
        '0.002',
      ],
      options,
    ).done;
    worker.child.kill('SIGTERM');
    await worker.done;
    expect(batch.code).toBe(1);
    const answered = Number(/batch done: (\d+) answered/.exec(batch.stderr)?.[1]);
    const notRun = Number(/, (\d+) not run/.exec(batch.stderr)?.[1]);
    expect(answered).toBeGreaterThanOrEqual(2);
    expect(answered + notRun).toBe(count);
    expect(notRun).toBeGreaterThan(0);
    expect(batch.stderr).toMatch(/of --max-batch-cost \$0\.002: \d+ jobs not run/);
    const written = (await readFile(path.join(root, 'capped-results.jsonl'), 'utf8'))
      .trim()
      .split('\n');
    expect(written).toHaveLength(answered);
  }, 120_000);

  test('a worker reads job contexts only under its --context-root (default its working directory): a path outside it or a /proc file fails that job, the rest run', async () => {
    const queue = await startRedis();
    const server = await serve({
      handler: () => fakeText('```repl\nconst seen = String(context).trim()\n```\nFINAL_VAR(seen)'),
    });
    const jobs = path.join(root, 'rooted');
    await mkdir(path.join(jobs, 'data'), { recursive: true });
    await writeFile(path.join(jobs, 'data', 'own.txt'), 'a context under the root\n');
    await writeFile(path.join(root, 'secret.txt'), 'a secret outside the root\n');
    await writeFile(
      path.join(jobs, 'contexts.jsonl'),
      [
        { id: 'own', query: 'Own?', context: 'data/own.txt' },
        { id: 'up', query: 'Up?', context: '../secret.txt' },
        { id: 'environ', query: 'Environ?', context: '/proc/self/environ' },
      ]
        .map((job) => JSON.stringify(job))
        .join('\n'),
    );
    const options = { cwd: jobs, baseURL: server.url };
    const worker = startBuiltRlm(['worker', '--queue', queue, '--no-store'], options);
    const batch = await startBuiltRlm(
      ['batch', 'contexts.jsonl', '--queue', queue, '-o', 'results.jsonl'],
      options,
    ).done;
    worker.child.kill('SIGTERM');
    const stopped = await worker.done;
    expect(batch.code).toBe(1);
    expect(batch.stderr).toContain('rlm: batch done: 1 answered, 2 failed');
    const lines = (await readFile(path.join(jobs, 'results.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { id: string; answer?: string; error?: { message: string } },
      );
    const byId = Object.fromEntries(lines.map((line) => [line.id, line]));
    expect(byId.own!.answer).toBe('a context under the root');
    expect(byId.up!.error!.message).toMatch(
      /secret\.txt is outside the context root .*rooted; move it under the root, or give the root that holds it with --context-root$/,
    );
    expect(byId.environ!.error!.message).toMatch(/\/proc\/self\/environ is a system file/);
    expect(stopped.stderr).toMatch(/id "up" failed \(.*outside the context root/);
    // Neither the secret nor the worker's environment (its API key) reached the model.
    expect(server.requests).toHaveLength(1);
    const sent = JSON.stringify(server.requests.map((request) => request.body));
    expect(sent).not.toContain('secret');
    expect(sent).not.toContain(testAnthropicKey);
  }, 120_000);

  test('an unreachable queue is a usage error for the batch and the worker', async () => {
    const port = await freePort();
    await writeFile(path.join(root, 'one.jsonl'), '{"id": 1, "query": "Question 1?"}\n');
    const options = { cwd: root, baseURL: 'http://127.0.0.1:9' };
    const url = `redis://127.0.0.1:${port}`;
    const batch = await startBuiltRlm(['batch', 'one.jsonl', '--queue', url], options).done;
    expect(batch.code).toBe(2);
    expect(batch.stderr).toMatch(
      /^rlm: cannot reach the queue redis:\/\/127\.0\.0\.1:\d+: .*start Redis or fix --queue$/m,
    );
    const bad = await startBuiltRlm(['worker', '--queue', 'http://nope'], options).done;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--queue needs a Redis URL such as redis://localhost:6379');
  }, 60_000);
});
