import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchEnvironment } from './bench-environment.js';
import type { BenchRow } from './benchmark.js';
import { formatResultsTable } from './format-results-table.js';

/** Writes `latest.md` (the table) and `latest.json` (environment and rows) into `directory`. */
export async function writeResults(
  directory: string,
  rows: readonly BenchRow[],
  environment: BenchEnvironment,
): Promise<void> {
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, 'latest.md'), formatResultsTable(rows, environment));
  await writeFile(
    join(directory, 'latest.json'),
    `${JSON.stringify({ environment, rows }, null, 2)}\n`,
  );
}
