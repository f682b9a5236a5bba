#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { benchEnvironment } from './bench-environment.js';
import type { BenchRow } from './benchmark.js';
import { benchmarks } from './benchmarks/index.js';
import { formatResultsTable } from './format-results-table.js';
import { parseBenchArguments } from './parse-bench-arguments.js';
import { writeResults } from './write-results.js';

const names = benchmarks.map((benchmark) => benchmark.name);
const partNames = benchmarks.flatMap((benchmark) => benchmark.parts ?? []);
const usage = `Usage: pnpm bench [--quick] [--only <name>[,<name>]] [--part <name>[,<name>]] [--runs <n>]

  --quick   2 runs per figure instead of 5
  --only    run some benchmarks: ${names.join(', ')}
  --part    run some parts of the benchmarks that have them: ${partNames.join(', ')}
  --runs    runs per figure

A full run (no --only, no --part) writes results/latest.md and results/latest.json.`;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const parsed = parseBenchArguments(argv, names, partNames);
  if (parsed.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const command = ['pnpm bench', ...argv.filter((argument) => argument !== '--')].join(' ');
  const environment = benchEnvironment(command);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const rows: BenchRow[] = [];
  const started = performance.now();
  for (const benchmark of benchmarks) {
    if (parsed.only.length > 0 && !parsed.only.includes(benchmark.name)) continue;
    log(`${benchmark.name}: ${benchmark.description}`);
    const benchmarkStarted = performance.now();
    const parts = parsed.parts.filter((part) => benchmark.parts?.includes(part));
    if (parsed.parts.length > 0 && parts.length === 0) continue;
    rows.push(...(await benchmark.run({ quick: parsed.quick, runs: parsed.runs, parts, log })));
    log(`  ${((performance.now() - benchmarkStarted) / 1000).toFixed(1)} s`);
  }
  log(`all: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  process.stdout.write(formatResultsTable(rows, environment));
  if (parsed.only.length === 0 && parsed.parts.length === 0) {
    await writeResults(fileURLToPath(new URL('../results/', import.meta.url)), rows, environment);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`@rlm/bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
