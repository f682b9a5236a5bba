import type { BenchEnvironment } from './bench-environment.js';
import type { BenchRow } from './benchmark.js';
import { formatQuantity } from './format-quantity.js';

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/** The results as a markdown table, with a line saying where, when and how they were made. */
export function formatResultsTable(
  rows: readonly BenchRow[],
  environment: BenchEnvironment,
): string {
  const lines = [
    `\`${environment.command}\` on ${environment.date.slice(0, 10)}: Node ${environment.node}, ${environment.platform}, ${environment.cores} x ${environment.cpu}, ${environment.memoryGb} GB. Each figure is the median of the stated runs; its baseline was measured in the same run.`,
    '',
    '| figure | median | baseline (same run) | ratio | target | runs |',
    '|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const baseline = row.baseline ? `${formatQuantity(row.baseline)} (${row.baseline.label})` : '';
    const target = row.target ? `${row.target.text} ${row.target.met ? 'met' : '**missed**'}` : '';
    const figure = row.note ? `${row.figure} (${row.note})` : row.figure;
    lines.push(
      `| ${cell(`${row.benchmark}: ${figure}`)} | ${cell(formatQuantity(row.result))} | ${cell(baseline)} | ${cell(row.ratio ? formatQuantity(row.ratio) : '')} | ${cell(target)} | ${row.runs} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
