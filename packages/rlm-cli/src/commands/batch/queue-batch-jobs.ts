import { emptyRunUsage, type RunUsage } from '@rlm/core';
import { addRunUsage } from '../../jobs/add-run-usage.js';
import {
  batchQueueName,
  parseJobClaim,
  type QueuedJobData,
  queuedBatchId,
  queuedJobData,
  queuedJobId,
  queueKeys,
} from '../../queue/batch-queue-job.js';
import { describeJobIds } from '../../jobs/describe-job-id.js';
import { formatBytes } from '../../output/format-bytes.js';
import { formatDuration } from '../../output/format-runs-table.js';
import type { CliOptions } from '../../run-options/run-options.js';
import type { BatchJob } from '../../jobs/parse-batch-jobs.js';
import type { QueueConnection } from '../../queue/parse-queue-url.js';
import type { QueuedRunSettings } from '../../queue/queued-run-settings.js';
import { causeOf, RateLimitedLog } from '../../queue/rate-limited-log.js';
import type { BatchOutcome } from './run-batch-jobs.js';
import type { BatchResult } from '../../jobs/run-batch-query.js';
import { redactPassword } from '../../queue/redact-password.js';

/** How {@link queueBatchJobs} reaches the queue and watches the jobs. */
export interface QueuedBatchOptions {
  /** The `--queue` URL, for messages. */
  readonly queue: string;
  readonly connection: QueueConnection;
  /** The JSONL file: with a job's id, it names the job on the queue. */
  readonly jobsFile: string;
  /** The batch's context flags, the fallback of the jobs without a context of their own. */
  readonly cli: CliOptions;
  /** US dollars: once the batch has spent this, the waiting jobs are taken off the queue. */
  readonly maxBatchCostUsd?: number;
  /** Bytes all the batch's jobs may store together; passed to the workers. */
  readonly maxArtifactBytes?: number;
  /**
   * The run settings a job carries (`rlm eval`'s variants); `undefined` for the workers' flags.
   * Part of the job's id on the queue: other settings make another job.
   */
  readonly runSettings?: (job: BatchJob) => QueuedRunSettings | undefined;
  /** The `rlm eval` variant a job runs, carried to its worker; `undefined` for a batch's job. */
  readonly variant?: (job: BatchJob) => string | undefined;
  /** How long no worker may make progress on the batch before it stops waiting, in ms. */
  readonly stallTimeoutMs: number;
  /**
   * How often every unanswered job is looked for on the queue, in ms. Default 5,000 (a quarter
   * of `stallTimeoutMs` when that is shorter, at least 500).
   */
  readonly checkIntervalMs?: number;
  /** Stops waiting: the jobs stay queued. */
  readonly signal?: AbortSignal;
  /** Prints one line (no newline): what happens to the queue, a stall and its cause. */
  readonly report: (line: string) => void;
}

/** Job ids looked up in one pipeline at most. */
const checkChunk = 500;

/**
 * `rlm batch --queue`: puts the jobs on the BullMQ queue, where `rlm worker` processes on any
 * machine run them, and yields each job's outcome as its result arrives, once per job. Jobs
 * queued by an earlier run of the same batch are found again: an answered one gives its answer,
 * a failed one is queued anew. Every unanswered job is looked for periodically and after each
 * reconnection: a job the queue lost (Redis restarted without persistence) is taken from the
 * result its worker kept, or queued again once no worker claims it. When no worker makes
 * progress for `stallTimeoutMs`, one line names the jobs and the cause and the generator ends
 * (the jobs stay queued; a rerun collects them). Ends at once on `signal`, or when the loop is
 * left. Once the cost cap is spent, the jobs still waiting are taken off and yielded `not-run`.
 */
export async function* queueBatchJobs(
  jobs: readonly BatchJob[],
  options: QueuedBatchOptions,
): AsyncGenerator<BatchOutcome, void, undefined> {
  const [{ Job, Queue, QueueEvents }, { Redis }] = await Promise.all([
    import('bullmq'),
    import('ioredis'),
  ]);
  const url = redactPassword(options.queue);
  const { connection, report } = options;
  const checkIntervalMs =
    options.checkIntervalMs ??
    Math.min(5000, Math.max(500, Math.floor(options.stallTimeoutMs / 4)));
  const queue = new Queue<QueuedJobData>(batchQueueName, { connection });
  const events = new QueueEvents(batchQueueName, { connection });
  // The keys beside the queue (results, claims): commands fail after one reconnection attempt.
  const redis = new Redis({ ...connection, maxRetriesPerRequest: 1 });
  const log = new RateLimitedLog(report, { prefix: 'rlm: ' });
  /** Since when this process's own connection has been away, and why. */
  let down: { readonly since: number; readonly message: string } | undefined;
  const onError = (error: Error) => {
    log.report(causeOf(error.message), `rlm: the queue ${url}: ${error.message}`);
  };
  queue.on('error', onError);
  events.on('error', onError);
  redis.on('error', (error: Error) => {
    down ??= { since: Date.now(), message: error.message };
    onError(error);
  });
  // A restart may come back before any reconnection fails: the closed connection says it.
  redis.on('close', () => {
    if (!ended) down ??= { since: Date.now(), message: 'the connection was closed' };
  });

  const batch = { id: queuedBatchId(options.jobsFile), maxArtifactBytes: options.maxArtifactBytes };
  const byJobId = new Map(
    jobs.map((job) => [queuedJobId(options.jobsFile, job, options.runSettings?.(job)), job]),
  );
  const outstanding = new Set(byJobId.keys());
  /** When each job was first found missing from the queue, with no result and no claim. */
  const missingSince = new Map<string, number>();
  /** The latest progress time of each job's claim seen. */
  const progressSeen = new Map<string, number>();
  let lastProgressAt = Date.now();
  const outcomes: BatchOutcome[] = [];
  let ended = false;
  let wake: () => void = () => {};
  const end = () => {
    ended = true;
    wake();
  };
  let spent: RunUsage = emptyRunUsage();
  let capping = false;

  const settle = (jobId: string, result: BatchResult) => {
    const job = byJobId.get(jobId);
    if (job === undefined || !outstanding.delete(jobId)) return;
    lastProgressAt = Date.now();
    missingSince.delete(jobId);
    outcomes.push({ kind: 'result', job, result: { ...result, id: job.id } });
    spent = addRunUsage(spent, result.usage);
    const cap = options.maxBatchCostUsd;
    if (cap !== undefined && (spent.costUsd ?? 0) >= cap) void stopStartingJobs();
    if (outstanding.size === 0) end();
    wake();
  };
  const submit = async (jobId: string, job: BatchJob) => {
    await redis.del(queueKeys.result(jobId));
    await queue.add(
      'query',
      queuedJobData(job, options.cli, batch, options.runSettings?.(job), options.variant?.(job)),
      {
        jobId,
        removeOnComplete: false,
        removeOnFail: false,
      },
    );
  };
  const stopStartingJobs = async () => {
    if (capping) return;
    capping = true;
    for (const jobId of [...outstanding]) {
      const queued = await Job.fromId(queue, jobId).catch(() => undefined);
      const state = await queued?.getState().catch(() => undefined);
      if (queued && (state === 'waiting' || state === 'delayed' || state === 'prioritized')) {
        const removed = await queued.remove().then(
          () => true,
          () => false,
        );
        if (removed && outstanding.delete(jobId)) {
          outcomes.push({ kind: 'not-run', job: byJobId.get(jobId)! });
        }
      }
    }
    if (outstanding.size === 0) end();
    wake();
  };

  /** Looks for every unanswered job: its result, its claim, the job itself. */
  let checking = false;
  const check = async () => {
    if (checking || ended) return;
    checking = true;
    try {
      const lost: string[] = [];
      const now = Date.now();
      const ids = [...outstanding];
      for (let start = 0; start < ids.length; start += checkChunk) {
        const chunk = ids.slice(start, start + checkChunk);
        const pipeline = redis.pipeline();
        for (const jobId of chunk) {
          pipeline.get(queueKeys.result(jobId));
          pipeline.get(queueKeys.claim(jobId));
          pipeline.exists(queue.toKey(jobId));
        }
        const replies = (await pipeline.exec()) ?? [];
        chunk.forEach((jobId, index) => {
          const [result, claim, exists] = replies
            .slice(index * 3, index * 3 + 3)
            .map(([error, value]) => (error ? undefined : value));
          if (typeof result === 'string') {
            settle(jobId, readResult(result));
            return;
          }
          const claimed = parseJobClaim(claim as string | null);
          if (claimed && progressSeen.get(jobId) !== claimed.progressAt) {
            progressSeen.set(jobId, claimed.progressAt);
            lastProgressAt = now;
          }
          if (exists === 1 || claimed) {
            missingSince.delete(jobId);
            return;
          }
          const since = missingSince.get(jobId);
          // Missing twice, a check apart: not a worker about to claim it again after a restart.
          if (since !== undefined && now - since >= checkIntervalMs) lost.push(jobId);
          else if (since === undefined) missingSince.set(jobId, now);
        });
      }
      if (lost.length > 0) {
        report(
          `rlm: the queue ${url} lost ${lost.length} unanswered ${lost.length === 1 ? 'job' : 'jobs'} (was Redis restarted without persistence?); queued again: ids ${describeJobIds(lost.map((jobId) => byJobId.get(jobId)!.id))}`,
        );
        for (const jobId of lost) {
          missingSince.delete(jobId);
          const job = byJobId.get(jobId);
          if (job && outstanding.has(jobId)) await submit(jobId, job);
        }
        lastProgressAt = Date.now();
      }
    } catch (error) {
      onError(error instanceof Error ? error : new Error(String(error)));
    } finally {
      checking = false;
    }
    if (!ended && Date.now() - lastProgressAt >= options.stallTimeoutMs) {
      const unanswered = [...outstanding].map((jobId) => byJobId.get(jobId)!.id);
      const cause = await diagnose();
      if (ended) return;
      report(
        `rlm: no worker made progress on this batch for ${formatDuration(Date.now() - lastProgressAt)} (--stall-timeout): ${unanswered.length} ${unanswered.length === 1 ? 'job' : 'jobs'} not answered (ids ${describeJobIds(unanswered)}): ${cause}; they stay on the queue: rerun the same command to collect their results`,
      );
      end();
    }
  };

  /** Why no worker makes progress, as far as the queue tells. */
  const diagnose = async (): Promise<string> => {
    if (down) {
      return `the queue ${url} cannot be reached since ${new Date(down.since).toISOString()} (${down.message})`;
    }
    try {
      const [workers, memory] = await Promise.all([queue.getWorkersCount(), redis.info('memory')]);
      const used = Number(/used_memory:(\d+)/.exec(memory)?.[1] ?? 0);
      const max = Number(/maxmemory:(\d+)/.exec(memory)?.[1] ?? 0);
      if (max > 0 && used >= max * 0.9) {
        return `Redis at ${url} is out of memory (${formatBytes(used)} used, maxmemory ${formatBytes(max)}): workers cannot write results; free memory or raise maxmemory`;
      }
      if (workers === 0) {
        return `no rlm worker is connected to the queue; start one: rlm worker --queue ${url}`;
      }
      const running = [...outstanding].filter((jobId) => progressSeen.has(jobId)).length;
      return running > 0
        ? `${running} of them ${running === 1 ? 'was' : 'were'} claimed by a worker that has gone quiet (a hung model call, or a worker cut off from Redis); ${workers} ${workers === 1 ? 'worker is' : 'workers are'} connected`
        : `${workers} ${workers === 1 ? 'worker is' : 'workers are'} connected, but none took these jobs (busy with other jobs, or failing: see the workers' logs)`;
    } catch (error) {
      return `the queue ${url} does not answer (${error instanceof Error ? error.message : String(error)})`;
    }
  };

  events.on('completed', ({ jobId, returnvalue }) => settle(jobId, readResult(returnvalue)));
  events.on('failed', ({ jobId, failedReason }) => {
    const job = byJobId.get(jobId);
    if (job === undefined) return;
    settle(jobId, {
      id: job.id,
      error: { name: 'QueuedJobError', message: failedReason },
      usage: emptyRunUsage(),
      durationMs: 0,
    });
  });
  events.on('active', ({ jobId }) => {
    if (outstanding.has(jobId)) lastProgressAt = Date.now();
  });
  redis.on('ready', () => {
    if (down === undefined) return;
    report(
      `rlm: the queue ${url} answers again after ${formatDuration(Date.now() - down.since)}; looking for every unanswered job`,
    );
    down = undefined;
    void check();
  });
  const onAbort = () => end();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    try {
      await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
      await submitOrCollect();
    } catch (error) {
      throw new Error(
        `cannot put the jobs on the queue ${url}: ${error instanceof Error ? error.message : String(error)}; rerun the same command once Redis answers (the jobs queued so far are found again)`,
        { cause: error },
      );
    }
    report(
      `rlm: ${outstanding.size} ${outstanding.size === 1 ? 'job' : 'jobs'} on the queue ${url}; run rlm worker --queue ${url} to work on them`,
    );
    if (outstanding.size === 0) end();
    lastProgressAt = Date.now();
    timer = setInterval(() => void check(), checkIntervalMs);
    for (;;) {
      const outcome = outcomes.shift();
      if (outcome !== undefined) {
        yield outcome;
        continue;
      }
      if (ended || options.signal?.aborted) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    ended = true;
    clearInterval(timer);
    options.signal?.removeEventListener('abort', onAbort);
    log.flush();
    // A server that is gone cannot be said goodbye to: give it a moment, then drop it.
    await Promise.race([
      Promise.allSettled([events.close(), queue.close(), redis.quit()]),
      new Promise((resolve) => setTimeout(resolve, 2000).unref()),
    ]);
    redis.disconnect();
  }

  /** Finds the jobs an earlier run queued (collecting their answers), and queues the rest. */
  async function submitOrCollect(): Promise<void> {
    for (const [jobId, job] of byJobId) {
      const kept = await redis.get(queueKeys.result(jobId));
      if (kept !== null) {
        const result = readResult(kept);
        if ('answer' in result) {
          settle(jobId, result);
          continue;
        }
        // A failure is run again.
        await redis.del(queueKeys.result(jobId));
      }
      const existing = await Job.fromId(queue, jobId);
      if (existing !== undefined) {
        const state = await existing.getState();
        if (state === 'completed') {
          const result = readResult(existing.returnvalue);
          if ('answer' in result) {
            settle(jobId, result);
            continue;
          }
        }
        if (state === 'completed' || state === 'failed') await existing.remove();
        else continue; // Waiting or running: its result will come.
      }
      await submit(jobId, job);
    }
  }
}

/** A worker's result (JSON text, or parsed on the job) as a result line. */
function readResult(value: unknown): BatchResult {
  const parsed: unknown = typeof value === 'string' ? safeParse(value) : value;
  if (typeof parsed === 'object' && parsed !== null && ('answer' in parsed || 'error' in parsed)) {
    return parsed as BatchResult;
  }
  return {
    id: 0,
    error: { name: 'QueuedJobError', message: 'the worker returned no result' },
    usage: emptyRunUsage(),
    durationMs: 0,
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
