import type { QueueConnection } from '../../queue/parse-queue-url.js';
import { readQueuedEvalResult } from '../../jobs/eval-run-result.js';
import { queuedRunSettings } from '../../queue/queued-run-settings.js';
import { queueBatchJobs } from '../batch/queue-batch-jobs.js';
import type { BatchOutput } from '../batch/batch-output.js';
import type { EvalBatch, EvalJob } from './eval-job.js';
import { baselineVariant, type EvalOptions } from './parse-eval-arguments.js';

/**
 * The jobs put on the queue for `rlm worker`s, each with its variant's run settings (the
 * baseline's too) and name; the workers return the facts each run is scored by.
 */
export function queuedEvalBatch(
  options: EvalOptions,
  jobs: readonly EvalJob[],
  queue: { readonly url: string; readonly connection: QueueConnection },
  windowTokens: number | undefined,
  output: BatchOutput,
): EvalBatch {
  const settings = new Map(
    options.variants.map((variant) => [variant.name, queuedRunSettings(variant.run, 'rlm')]),
  );
  if (windowTokens !== undefined) {
    settings.set(baselineVariant, queuedRunSettings(options.batch.run, 'direct', windowTokens));
  }
  return {
    start: (signal) =>
      queueBatchJobs(jobs, {
        queue: queue.url,
        connection: queue.connection,
        jobsFile: options.batch.jobsFile,
        cli: options.batch.run,
        maxBatchCostUsd: options.batch.maxBatchCostUsd,
        maxArtifactBytes: options.batch.maxBatchArtifactBytes,
        stallTimeoutMs: options.batch.stallTimeoutMs,
        runSettings: (job) => settings.get((job as EvalJob).variant),
        variant: (job) => (job as EvalJob).variant,
        signal,
        report: (line) => output.line(line),
      }),
    runOf: (_job, result) => readQueuedEvalResult(result),
  };
}
