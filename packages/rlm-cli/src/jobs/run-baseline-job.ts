import { emptyRunUsage } from '@rlm/core';
import { type DirectBaselineSettings, type EvalRun, runDirectBaseline } from '@rlm/eval';
import type { BatchJobId } from './parse-batch-jobs.js';
import type { BatchResult } from './run-batch-query.js';
import { baselineResultOf } from './eval-run-result.js';

/**
 * The direct baseline of one job, in this process or on a worker: its context loaded (a
 * context that cannot load fails the run), then the model asked once when the prompt fits its
 * window. Resolves to the result line and the run; never rejects.
 */
export async function runBaselineJob(
  job: { readonly id: BatchJobId; readonly query: string },
  context: () => Promise<unknown> | unknown,
  settings: DirectBaselineSettings,
): Promise<{ readonly result: BatchResult; readonly run: EvalRun }> {
  let run: EvalRun;
  try {
    run = await runDirectBaseline(job.query, await context(), settings);
  } catch (error) {
    run = {
      kind: 'failed',
      error: {
        name: (error as Error)?.name ?? 'Error',
        message: (error as Error)?.message ?? String(error),
      },
      usage: emptyRunUsage(),
      durationMs: 0,
      steps: 0,
      subCalls: 0,
    };
  }
  return { result: baselineResultOf(job.id, run), run };
}
