import { createMemoryArtifactStore } from '@rlm/artifacts';
import { type ArtifactStore, createRLM, type RLM } from '@rlm/core';
import { createScriptedModel, createScriptedSandbox } from '@rlm/core/testing';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { BatchJob } from '../../jobs/parse-batch-jobs.js';
import { type BatchJobsOptions, type BatchOutcome, runBatchJobs } from './run-batch-jobs.js';
import { useTemporaryDirectory } from '../../test-support/use-temporary-directory.js';

const { root } = useTemporaryDirectory('rlm-batch-jobs-');

/** Jobs `Question <n>?` with ids 1..count. */
function jobs(count: number): BatchJob[] {
  return Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    key: String(index + 1),
    query: `Question ${index + 1}?`,
    contextFile: undefined,
    line: index + 1,
  }));
}

/**
 * RLMs whose model answers `FINAL(answer <n>)` after `delayMs` (after running one code block
 * first with `code`), priced with `priced`.
 */
function rlms(options: { delayMs?: number; code?: boolean; priced?: boolean } = {}) {
  const createRlm = (artifacts: Parameters<BatchJobsOptions['createRlm']>[0]): RLM =>
    createRLM({
      model: createScriptedModel([], {
        modelId: options.priced ? 'claude-sonnet-4-5' : 'scripted',
        fallback: (request) => {
          const first = JSON.stringify(request.messages[0]);
          const question = /Question (\d+)\?/.exec(first)?.[1];
          const ran = request.messages.length > 1;
          return {
            text: options.code && !ran ? '```repl\nnoted = 1\n```' : `FINAL(answer ${question})`,
            delayMs: options.delayMs ?? 0,
            inputTokens: 1000,
            outputTokens: 100,
          };
        },
      }),
      sandbox: createScriptedSandbox(() => ({ variables: { noted: 1 } })),
      ...(artifacts ? { artifacts } : {}),
    });
  return { createRlm };
}

function baseOptions(overrides: Partial<BatchJobsOptions> = {}): BatchJobsOptions {
  return {
    createRlm: rlms().createRlm,
    store: undefined,
    concurrency: 2,
    context: undefined,
    maxContextBytes: 1024,
    model: { provider: 'anthropic', modelId: 'scripted' },
    subModel: undefined,
    ...overrides,
  };
}

/** `store` whose writes (`store`, `put`, `saveCheckpoint`, through any scope) all reject. */
function failingWrites(store: ArtifactStore): ArtifactStore {
  return new Proxy(store, {
    get: (target, property) => {
      if (property === 'scoped') return (scope: string) => failingWrites(target.scoped(scope));
      if (property === 'store' || property === 'put' || property === 'saveCheckpoint') {
        return () =>
          Promise.reject(
            Object.assign(new Error('@rlm/artifacts: the disk is full'), {
              name: 'ArtifactStoreError',
            }),
          );
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function collect(outcomes: AsyncIterable<BatchOutcome>): Promise<BatchOutcome[]> {
  const collected: BatchOutcome[] = [];
  for await (const outcome of outcomes) collected.push(outcome);
  return collected;
}

describe('runBatchJobs', () => {
  test('yields one result per job as it ends, at most `concurrency` running at once', async () => {
    let running = 0;
    let most = 0;
    const outcomes = await collect(
      runBatchJobs(jobs(6), {
        ...baseOptions({ createRlm: rlms({ delayMs: 30 }).createRlm, concurrency: 3 }),
        onStart: () => {
          running += 1;
          most = Math.max(most, running);
        },
        onEnd: () => {
          running -= 1;
        },
      }),
    );
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(Array(6).fill('result'));
    const answers = outcomes.map((outcome) =>
      outcome.kind === 'result' && 'answer' in outcome.result ? outcome.result.answer : undefined,
    );
    expect(answers.sort()).toEqual(
      jobs(6)
        .map((job) => `answer ${job.id}`)
        .sort(),
    );
    expect(most).toBe(3);
  });

  test('a store failing under a job is counted in its result, without failing it', async () => {
    // Reads work; every write rejects, as a full disk does.
    const store = failingWrites(createMemoryArtifactStore());
    const failures: string[] = [];
    const outcomes = await collect(
      runBatchJobs(jobs(2), {
        ...baseOptions({ createRlm: rlms({ code: true }).createRlm, store }),
        onStoreFailure: (job, failure) => failures.push(`${job.id} ${failure.operation}`),
      }),
    );
    for (const outcome of outcomes) {
      expect(outcome.kind).toBe('result');
      if (outcome.kind !== 'result') continue;
      expect('answer' in outcome.result).toBe(true);
      expect(outcome.result.storeFailures?.count).toBeGreaterThanOrEqual(1);
      expect(outcome.result.storeFailures?.first.message).toBe('the disk is full');
    }
    expect(failures.sort()).toEqual(['1 saveCheckpoint', '2 saveCheckpoint']);
  });

  test('past the cost cap no job starts; the jobs left are yielded not-run', async () => {
    const outcomes = await collect(
      runBatchJobs(jobs(5), {
        ...baseOptions({
          createRlm: rlms({ priced: true }).createRlm,
          concurrency: 1,
          maxBatchCostUsd: 0.0001,
        }),
      }),
    );
    expect(outcomes.map((outcome) => [outcome.kind, outcome.job.id])).toEqual([
      ['result', 1],
      ['not-run', 2],
      ['not-run', 3],
      ['not-run', 4],
      ['not-run', 5],
    ]);
  });

  test('the signal stops the batch: running jobs are aborted and yield nothing; leaving the loop does the same', async () => {
    const controller = new AbortController();
    const seen: BatchOutcome[] = [];
    const ended: number[] = [];
    for await (const outcome of runBatchJobs(jobs(4), {
      ...baseOptions({ createRlm: rlms({ delayMs: 10_000 }).createRlm }),
      signal: controller.signal,
      onStart: () => controller.abort(),
      onEnd: (job) => ended.push(Number(job.id)),
    })) {
      seen.push(outcome);
    }
    expect(seen).toEqual([]);
    // The first job's start stopped the batch: it was aborted, and no other started.
    expect(ended).toEqual([1]);

    const left: number[] = [];
    for await (const outcome of runBatchJobs(jobs(4), {
      ...baseOptions({ createRlm: rlms({ delayMs: 5 }).createRlm, concurrency: 1 }),
      onEnd: (job) => left.push(Number(job.id)),
    })) {
      expect(outcome.job.id).toBe(1);
      break;
    }
    // Leaving the loop stopped the batch: job 2 was aborted, 3 and 4 never started.
    expect(left).toEqual([1, 2]);
  });

  test("a job's own .json file that does not parse is text, or with --strict fails that job", async () => {
    const file = path.join(root, 'settings.json');
    await writeFile(file, '{ // a comment\n "a": 1 }');
    const job: BatchJob = { ...jobs(1)[0]!, contextFile: file };
    const [lenient] = await collect(runBatchJobs([job], baseOptions()));
    expect(lenient).toMatchObject({ kind: 'result', result: { answer: 'answer 1' } });
    const [strict] = await collect(
      runBatchJobs([job], { ...baseOptions(), directoryContext: { strict: true } }),
    );
    expect(strict).toMatchObject({
      kind: 'result',
      result: { error: { name: 'ContextLoadError', message: expect.stringContaining('--strict') } },
    });
  });
});
