import { type RunSummary, totalTokens } from '@rlm/trace';

/**
 * `rlm runs` as a table, newest first: run id, start (UTC), status, steps, tokens, cost
 * (`?` when unknown), duration and the query on one line, cut to fit `width` characters.
 */
export function formatRunsTable(runs: readonly RunSummary[], width = 120): string {
  if (runs.length === 0) return 'No runs stored yet.\n';
  const rows = runs.map((run) => [
    run.runId,
    new Date(run.startedAt).toISOString().slice(0, 19).replace('T', ' '),
    run.status,
    String(run.steps),
    totalTokens(run.usage).toLocaleString('en-US'),
    run.usage.costUsd === undefined ? '?' : `$${run.usage.costUsd.toFixed(4)}`,
    run.durationMs === undefined ? '-' : formatDuration(run.durationMs),
    run.query.replace(/\s+/g, ' ').trim(),
  ]);
  const header = ['RUN', 'STARTED (UTC)', 'STATUS', 'STEPS', 'TOKENS', 'COST', 'TIME', 'QUERY'];
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => row[column]!.length)));
  const numeric = new Set([3, 4, 5, 6]);
  return all
    .map((row) => {
      const line = row
        .map((cell, column) => {
          if (column === row.length - 1) return cell;
          return numeric.has(column)
            ? cell.padStart(widths[column]!)
            : cell.padEnd(widths[column]!);
        })
        .join('  ');
      return line.length > width ? `${line.slice(0, width - 1)}…` : line;
    })
    .map((line) => `${line}\n`)
    .join('');
}

/** `850 ms`, `12.3 s`, `4 min 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${String(seconds).padStart(2, '0')} s`;
}
