import { type PerformanceEntry, PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import type { LanguageModel } from '@rlm/core';
import { describe, expect, test } from 'vitest';
import { collectAtRest, keepMemoryLow, restAfterMs } from './keep-memory-low.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function newSpaceMb(): number {
  const space = getHeapSpaceStatistics().find((entry) => entry.space_name === 'new_space');
  return (space?.space_size ?? 0) / (1024 * 1024);
}

/** Allocates about 200 MB of short-lived objects, keeping one in a thousand. */
function churn(): number {
  const kept: object[] = [];
  for (let index = 0; index < 3_000_000; index++) {
    const value = { index, pair: [index, index + 1], text: `x${index}` };
    if (index % 1000 === 0) kept.push(value);
  }
  return kept.length;
}

/** A model that answers after `delayMs`. */
function slowModel(delayMs: number): LanguageModel {
  return {
    modelId: 'test:slow',
    supportsTools: false,
    withModel: () => slowModel(delayMs),
    generate: async () => {
      await sleep(delayMs);
      return { text: 'done' } as Awaited<ReturnType<LanguageModel['generate']>>;
    },
  };
}

/** Counts the major collections while `run` runs. */
async function majorCollections(run: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (
        (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ===
        constants.NODE_PERFORMANCE_GC_MAJOR
      ) {
        count++;
      }
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  try {
    await run();
    // GC entries are delivered asynchronously.
    await sleep(50);
  } finally {
    observer.disconnect();
  }
  return count;
}

describe('keepMemoryLow', () => {
  test('before it, collectAtRest hands the model back as it is', () => {
    const model = slowModel(0);
    expect(collectAtRest(model)).toBe(model);
  });

  test('a model call pending alone past restAfterMs collects; quick calls do not', async () => {
    keepMemoryLow();
    const slow = collectAtRest(slowModel(restAfterMs * 3));
    expect(slow.modelId).toBe('test:slow');
    expect(
      await majorCollections(() => slow.generate({ system: '', messages: [] })),
    ).toBeGreaterThanOrEqual(1);
    const quick = collectAtRest(slowModel(restAfterMs / 10));
    expect(
      await majorCollections(async () => {
        for (let call = 0; call < 5; call++) await quick.generate({ system: '', messages: [] });
      }),
    ).toBe(0);
    // A model made for another id collects too.
    const other = slow.withModel?.('other') as LanguageModel;
    expect(
      await majorCollections(() => other.generate({ system: '', messages: [] })),
    ).toBeGreaterThanOrEqual(1);
  });
  test('the young generation grows no more, also after a worker starts; gc stays hidden', async () => {
    // The test process's young generation has grown while it loaded; V8 grows it to 16 MiB a
    // semi-space (32 MiB in all) under such churn unless the growth factor is held.
    const before = newSpaceMb();
    expect(before).toBeLessThan(32);
    keepMemoryLow();
    churn();
    expect(newSpaceMb()).toBe(before);
    const worker = new Worker('setTimeout(() => {}, 10)', { eval: true, env: {} });
    await new Promise((resolve) => worker.once('online', resolve));
    await new Promise((resolve) => worker.once('exit', resolve));
    churn();
    expect(newSpaceMb()).toBe(before);
    expect('gc' in globalThis).toBe(false);
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });
});
