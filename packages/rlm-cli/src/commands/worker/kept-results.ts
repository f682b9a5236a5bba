import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { describeJobId } from '../../jobs/describe-job-id.js';
import type { BatchResult } from '../../jobs/run-batch-query.js';
import { type QueuedJobData, queueKeys } from '../../queue/batch-queue-job.js';
import { causeOf } from '../../queue/rate-limited-log.js';
import type { WorkerLog } from './worker-log.js';

/**
 * Results a worker writes beside the queue, before BullMQ is told: a batch finds them whatever
 * becomes of the job in the queue, and a worker given the job again gives its result back.
 */
export class KeptResults {
  readonly #redis: Redis;
  readonly #settings: { readonly queue: string; readonly artifactTtlMs: number };
  readonly #log: WorkerLog;
  readonly #quitting: () => boolean;
  /** Results not yet written beside the queue, by queue job id. */
  readonly #unwritten = new Map<string, QueuedJobData['id']>();

  constructor(
    redis: Redis,
    settings: { readonly queue: string; readonly artifactTtlMs: number },
    log: WorkerLog,
    quitting: () => boolean,
  ) {
    this.#redis = redis;
    this.#settings = settings;
    this.#log = log;
    this.#quitting = quitting;
  }

  /** The result kept for the queue job `jobId`, if there is one. */
  async read(jobId: string): Promise<BatchResult | undefined> {
    return readKeptResult(await this.#redis.get(queueKeys.result(jobId)));
  }

  /** The ids of the results not yet written (the worker is quitting). */
  unwrittenIds(): QueuedJobData['id'][] {
    return [...this.#unwritten.values()];
  }

  /**
   * Writes the result beside the queue, for the batch to find whatever becomes of the job in
   * the queue; a refusal (out of memory, ...) is said and the write tried again, until it is
   * taken or the worker quits. An outage is waited through.
   */
  async keep(jobId: string, result: BatchResult): Promise<void> {
    const shown = describeJobId(result.id);
    this.#unwritten.set(jobId, result.id);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await this.#redis.set(
            queueKeys.result(jobId),
            JSON.stringify(result),
            'PX',
            this.#settings.artifactTtlMs,
          );
          if (attempt > 0) {
            this.#log.line(`rlm: worker: id ${shown}: its kept result is written to the queue now`);
          }
          return;
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          this.#log.noteOutOfMemory(message, this.#settings.queue, 'results');
          this.#log.report(
            causeOf(`result ${message}`),
            `rlm: worker: id ${shown}: the queue refused its result (${message}); keeping it and trying again`,
          );
          if (this.#quitting()) throw error;
          await sleep(Math.min(500 * 2 ** attempt, 10_000));
        }
      }
    } finally {
      this.#unwritten.delete(jobId);
    }
  }
}

/** A result kept beside the queue (JSON), or `undefined`. */
function readKeptResult(text: string | null): BatchResult | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as BatchResult;
    return typeof value === 'object' && value !== null && ('answer' in value || 'error' in value)
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}
