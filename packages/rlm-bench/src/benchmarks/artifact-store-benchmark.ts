import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSqliteArtifactStore } from '@rlm/artifacts';
import type { Benchmark, BenchRow } from '../benchmark.js';
import { median } from '../median.js';
import { withTemporaryDirectory } from '../with-temporary-directory.js';
import { timeAsync } from '../time-async.js';

const mebibyte = 1024 * 1024;

interface Case {
  readonly label: string;
  readonly size: number;
  /** Values stored (and loaded) per run. */
  readonly count: number;
  readonly unit: 'ops/s' | 'MB/s';
}

/** Distinct content of `size` ASCII characters. */
function content(size: number, tag: string): string {
  const head = `${tag}:`;
  return head + 'x'.repeat(Math.max(0, size - head.length));
}

/**
 * Store and load throughput of `createSqliteArtifactStore` for 1 KB and 10 MB text values,
 * against `fs.writeFile`/`fs.readFile` of the same strings in the same run.
 */
export const artifactStoreBenchmark: Benchmark = {
  name: 'artifacts',
  description: 'SQLite artifact store throughput vs fs',
  async run(options) {
    const cases: Case[] = [
      { label: '1 KB', size: 1024, count: options.quick ? 100 : 300, unit: 'ops/s' },
      { label: '10 MB', size: 10 * mebibyte, count: 1, unit: 'MB/s' },
    ];
    return withTemporaryDirectory(async (directory) => {
      const store = await createSqliteArtifactStore({ path: join(directory, 'bench.sqlite') });
      try {
        const rows: BenchRow[] = [];
        for (const testCase of cases) {
          const times = {
            store: [] as number[],
            load: [] as number[],
            write: [] as number[],
            read: [] as number[],
          };
          // One untimed round first: SQLite's page cache and V8's compiled code warm up.
          for (let run = -1; run < options.runs; run++) {
            const values = Array.from({ length: testCase.count }, (_, index) =>
              content(testCase.size, `${testCase.label}-${run}-${index}`),
            );
            const files = values.map((_, index) => join(directory, `file-${run}-${index}.txt`));
            let ids: string[] = [];
            const storeMs = await timeAsync(async () => {
              ids = [];
              for (const value of values) ids.push((await store.store(value)).id);
            });
            const loadMs = await timeAsync(async () => {
              for (const id of ids) await store.load(id);
            });
            const writeMs = await timeAsync(async () => {
              for (const [index, value] of values.entries())
                await writeFile(files[index] as string, value);
            });
            const readMs = await timeAsync(async () => {
              for (const file of files) await readFile(file, 'utf8');
            });
            if (run < 0) continue;
            times.store.push(storeMs);
            times.load.push(loadMs);
            times.write.push(writeMs);
            times.read.push(readMs);
          }
          const rate = (ms: number) =>
            testCase.unit === 'ops/s'
              ? (testCase.count * 1000) / ms
              : (testCase.count * testCase.size * 1000) / mebibyte / ms;
          for (const [operation, subject, baseline, baselineLabel] of [
            ['store', times.store, times.write, 'fs.writeFile'],
            ['load', times.load, times.read, 'fs.readFile'],
          ] as const) {
            const result = rate(median(subject));
            const baselineRate = rate(median(baseline));
            rows.push({
              benchmark: 'artifacts',
              figure: `SQLite ${operation}, ${testCase.label} values`,
              result: { value: result, unit: testCase.unit },
              baseline: { value: baselineRate, unit: testCase.unit, label: baselineLabel },
              ratio: { value: result / baselineRate, unit: 'x' },
              runs: options.runs,
              note: testCase.unit === 'ops/s' ? `${testCase.count} values a run` : undefined,
            });
          }
        }
        return rows;
      } finally {
        await store[Symbol.asyncDispose]();
      }
    });
  },
};
