import { formatDuration } from '../../output/format-runs-table.js';
import { formatDollars } from '../../output/format-run-totals.js';

/** Where a batch stands. */
export interface BatchProgress {
  /** Jobs this invocation runs (ids already answered are not counted). */
  readonly total: number;
  /** Jobs answered so far. */
  readonly answered: number;
  /** Jobs that failed so far. */
  readonly failed: number;
  /** Jobs running now. */
  readonly running: number;
  /** Tokens of every model call so far, finished and running jobs alike. */
  readonly tokens: number;
  /** US dollars so far; `undefined` when no model call had a price. */
  readonly costUsd: number | undefined;
  /** Milliseconds since the batch started. */
  readonly elapsedMs: number;
}

const wholeNumber = new Intl.NumberFormat('en-US');

/**
 * One progress line without a newline:
 * `12/20 done · 1 failed · 4 running · 12,345 tokens · $0.0123 · 42.0 s · ~30 s left`. The time
 * left is the pace so far times the jobs left; it is shown once a job has ended.
 */
export function formatBatchProgress(progress: BatchProgress): string {
  const done = progress.answered + progress.failed;
  const parts = [
    `${done}/${progress.total} done`,
    ...(progress.failed > 0 ? [`${progress.failed} failed`] : []),
    `${progress.running} running`,
    `${wholeNumber.format(progress.tokens)} tokens`,
    progress.costUsd === undefined ? 'cost unknown' : formatDollars(progress.costUsd),
    formatDuration(progress.elapsedMs),
  ];
  const left = estimateTimeLeftMs(progress);
  if (left !== undefined) parts.push(`~${formatDuration(left)} left`);
  return parts.join(' · ');
}

/** The pace so far times the jobs left; `undefined` before the first job ends or after the last. */
export function estimateTimeLeftMs(progress: BatchProgress): number | undefined {
  const done = progress.answered + progress.failed;
  if (done === 0 || done >= progress.total) return undefined;
  return (progress.elapsedMs / done) * (progress.total - done);
}
