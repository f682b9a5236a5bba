import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { BatchResult } from '../../jobs/run-batch-query.js';
import { type JobClaim, parseJobClaim, queueKeys } from '../../queue/batch-queue-job.js';
import type { KeptResults } from './kept-results.js';
import type { WorkerLog } from './worker-log.js';

/** A job this worker runs now: its claim, kept fresh while it runs. */
export interface RunningJob {
  claim: JobClaim;
  readonly controller: AbortController;
}

/**
 * The claims of one worker's running jobs beside the queue: a batch whose queue lost a job sees
 * it running, and a job queued again is not run twice at once. Each claim expires after the
 * lock duration unless written again, which a heartbeat does every third of it, and at once when
 * Redis is back after an outage (a restart wiped the claims).
 */
export class JobClaims {
  readonly #worker: string;
  readonly #redis: Redis;
  readonly #lockDurationMs: number;
  readonly #kept: KeptResults;
  readonly #log: WorkerLog;
  readonly #quitting: () => boolean;
  readonly #running = new Map<string, RunningJob>();

  constructor(options: {
    /** `host:pid` of the worker. */
    readonly worker: string;
    readonly redis: Redis;
    readonly lockDurationMs: number;
    readonly kept: KeptResults;
    readonly log: WorkerLog;
    readonly quitting: () => boolean;
  }) {
    this.#worker = options.worker;
    this.#redis = options.redis;
    this.#lockDurationMs = options.lockDurationMs;
    this.#kept = options.kept;
    this.#log = options.log;
    this.#quitting = options.quitting;
    const heartbeat = setInterval(
      () => this.refresh(),
      Math.max(250, Math.floor(options.lockDurationMs / 3)),
    );
    heartbeat.unref();
    options.redis.on('ready', () => this.refresh());
  }

  /**
   * Claims the job beside the queue. Another run of it claimed by a live worker is waited for
   * (its result is given back) instead of running the job twice at once.
   */
  async claim(
    jobId: string,
    shown: string,
  ): Promise<{ readonly running: RunningJob } | { readonly result: BatchResult }> {
    const key = queueKeys.claim(jobId);
    let said = false;
    for (;;) {
      const now = Date.now();
      const claim: JobClaim = {
        worker: this.#worker,
        token: randomBytes(8).toString('hex'),
        startedAt: now,
        progressAt: now,
      };
      const taken = await this.#redis.set(
        key,
        JSON.stringify(claim),
        'PX',
        this.#lockDurationMs,
        'NX',
      );
      if (taken === 'OK') {
        const running = { claim, controller: new AbortController() };
        this.#running.set(jobId, running);
        return { running };
      }
      const [other, kept] = await Promise.all([
        this.#redis.get(key).then(parseJobClaim),
        this.#kept.read(jobId),
      ]);
      if (kept) return { result: kept };
      if (other && !said) {
        said = true;
        this.#log.line(
          `rlm: worker: id ${shown} is already running on worker ${other.worker} (since ${new Date(other.startedAt).toISOString()}): waiting for its result instead of running it again`,
        );
      }
      if (this.#quitting()) throw new Error('the worker is quitting');
      await sleep(Math.min(1000, this.#lockDurationMs / 3));
    }
  }

  /** The job no longer runs here: its claim is not written again. */
  finished(jobId: string): void {
    this.#running.delete(jobId);
  }

  /** Drops the job's claim, if it is still this worker's. */
  async release(jobId: string): Promise<void> {
    const key = queueKeys.claim(jobId);
    const claim = parseJobClaim(await this.#redis.get(key).catch(() => null));
    if (claim?.worker === this.#worker) await this.#redis.del(key).catch(() => {});
  }

  /** Writes every running job's claim again, with its latest progress. */
  refresh(): void {
    for (const [jobId, running] of this.#running) {
      this.#redis
        .set(queueKeys.claim(jobId), JSON.stringify(running.claim), 'PX', this.#lockDurationMs)
        .catch(() => {});
    }
  }

  /** Stops every running job (a second signal). */
  abortAll(): void {
    for (const running of this.#running.values()) running.controller.abort();
  }
}
