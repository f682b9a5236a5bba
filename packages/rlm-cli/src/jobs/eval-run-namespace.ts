import { createHash } from 'node:crypto';
import type { QueuedJobData } from '../queue/batch-queue-job.js';
import { QueuedRunSettingsError } from '../queue/queued-run-settings-error.js';
import type { QueuedRunSettings } from '../queue/queued-run-settings.js';

/** What an `rlm eval` variant's name may be: letters, digits, `.`, `_`, `+`, `-`, up to 40. */
export const variantNamePattern = /^[A-Za-z0-9][\w.+-]{0,39}$/;

/**
 * The `artifacts.runNamespace` of an eval variant's runs: made of the eval's identity (its
 * dataset, `queuedBatchId`), the variant's name and its run settings, so that the variants of
 * one item never share a run's scope or checkpoints, and a variant whose flags changed does not
 * resume a run made with the old ones. The same for the same eval and variant, locally or on any
 * worker, so a job taken over from a killed worker resumes its own checkpoint.
 */
export function evalRunNamespace(
  evalId: string,
  variant: string,
  settings: QueuedRunSettings | undefined,
): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([evalId, settings ?? null]), 'utf8')
    .digest('hex')
    .slice(0, 24);
  return `rlm-eval:${variant}:${digest}`;
}

/**
 * The run namespace of a queued eval job, from the eval's identity and the variant it carries;
 * `undefined` for a job without them (a batch's, or one queued by an earlier version), which a
 * worker then runs without resuming.
 *
 * @throws {QueuedRunSettingsError} for a variant name an eval does not give.
 */
export function queuedEvalRunNamespace(data: QueuedJobData): string | undefined {
  const { variant, batch } = data;
  if (variant === undefined || batch === undefined) return undefined;
  if (typeof variant !== 'string' || !variantNamePattern.test(variant)) {
    throw new QueuedRunSettingsError(
      `the job's variant must be a name of letters, digits, . _ + - (up to 40), got ${typeof variant === 'string' ? JSON.stringify(variant.slice(0, 40)) : `a ${typeof variant}`}; run the same rlm version for rlm eval --queue and rlm worker`,
    );
  }
  return evalRunNamespace(String(batch.id), variant, data.run);
}
