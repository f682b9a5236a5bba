import type { ArtifactStore } from '@rlm/core';
import type { Redis } from 'ioredis';
import { limitBatchArtifacts, redisArtifactCounter } from '../../jobs/batch-artifact-quota.js';
import { describeJobId } from '../../jobs/describe-job-id.js';
import { type BatchResult, runBatchQuery } from '../../jobs/run-batch-query.js';
import { type QueuedJobData, queueKeys } from '../../queue/batch-queue-job.js';
import { causeOf } from '../../queue/rate-limited-log.js';
import { formatModelRetry } from '../../rlm/format-model-retry.js';
import { ModelCallNames } from '../../rlm/model-call-names.js';
import type { RunTally } from '../../rlm/run-tally.js';
import { StoreFailureWatch } from '../../store/watch-store-failures.js';
import type { RunningJob } from './job-claims.js';
import type { JobPlan, RlmFactory } from './job-planner.js';
import type { WorkerLog } from './worker-log.js';

/** What a worker runs an RLM job with besides the job. */
export interface QueuedRlmJobParts {
  /** The worker's store (`--store`), shared with the other workers; none: `--no-store`. */
  readonly store: ArtifactStore | undefined;
  /** The queue's Redis, where the batch's stored bytes are counted. */
  readonly redis: Redis;
  readonly artifactTtlMs: number;
  readonly log: WorkerLog;
}

/**
 * Runs a queued job on its own RLM and view of the store (its store failures counted, the
 * batch's `--max-batch-artifact-bytes` applied), keeping its claim's progress fresh; a job taken
 * over from a killed worker resumes from its checkpoint when its plan allows.
 */
export async function runQueuedRlmJob(
  data: QueuedJobData,
  running: RunningJob,
  plan: Extract<JobPlan, { readonly createRlm: RlmFactory }>,
  tally: RunTally,
  context: () => Promise<unknown>,
  parts: QueuedRlmJobParts,
): Promise<{ readonly result: BatchResult; readonly runId: string | undefined }> {
  const { id, query, batch } = data;
  const { store, log } = parts;
  const shown = describeJobId(id);
  const cli = plan.cli;
  const watch = new StoreFailureWatch((failure) => {
    log.noteOutOfMemory(failure.message, cli.storePath ?? '', 'artifacts and checkpoints');
    log.report(
      causeOf(`${failure.operation} ${failure.message}`),
      `rlm: worker: id ${shown}: the store failed (${failure.operation}): ${failure.message}; the job goes on, but what it stores may be lost`,
    );
  });
  const limit = batch?.maxArtifactBytes;
  const view =
    store &&
    watch.wrap(
      limit === undefined || batch === undefined
        ? store
        : limitBatchArtifacts(
            store,
            redisArtifactCounter(
              parts.redis,
              queueKeys.artifactBytes(batch.id),
              parts.artifactTtlMs,
            ),
            limit,
          ),
    );
  const rlm = plan.createRlm(view);
  const callNames = new ModelCallNames();
  let ran: Awaited<ReturnType<typeof runBatchQuery>>;
  try {
    ran = await runBatchQuery(
      rlm,
      { id, query },
      {
        context,
        signal: running.controller.signal,
        tally,
        onEvent: (event) => {
          running.claim = { ...running.claim, progressAt: Date.now() };
          callNames.observe(event);
          if (event.type === 'model-retry') {
            const call = callNames.nameOf(event);
            log.line(formatModelRetry(event, call, `rlm: worker: id ${shown}: `).trimEnd());
          }
        },
        store,
        // Taken over from a killed worker: continue from its last checkpoint (an eval's job,
        // from its own variant's).
        resume: store !== undefined && plan.resumable,
        report: (line) =>
          log.report(causeOf(line), line.replace(/^rlm: /, `rlm: worker: id ${shown}: `)),
        model: cli.model,
        subModel: cli.subModel,
      },
    );
  } finally {
    // Waits for the job's last checkpoint writes, whose failures count too.
    await rlm.dispose().catch(() => {});
  }
  const failures = watch.take();
  return {
    runId: ran.runId,
    result:
      failures.length === 0
        ? ran.result
        : { ...ran.result, storeFailures: { count: failures.length, first: failures[0]! } },
  };
}
