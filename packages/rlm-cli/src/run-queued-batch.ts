import { emptyRunUsage, type RunUsage } from '@rlm/core';
import { addRunUsage } from './add-run-usage.js';
import type { BatchResultsFile } from './batch-results-file.js';
import { batchQueueName, queuedJobData, queuedJobId } from './batch-queue-job.js';
import { checkQueueReachable } from './check-queue-reachable.js';
import { formatCost, formatTokens } from './format-run-totals.js';
import { formatDuration } from './format-runs-table.js';
import type { BatchOptions } from './parse-batch-arguments.js';
import type { BatchJob } from './parse-batch-jobs.js';
import { parseQueueUrl } from './parse-queue-url.js';
import type { BatchResult } from './run-batch-query.js';
import { UsageError } from './usage-error.js';

/** What {@link runQueuedBatch} writes to and listens on. */
export interface QueuedBatchIo {
  readonly stderr: NodeJS.WritableStream;
  readonly onInterrupt: (listener: () => void) => () => void;
  readonly onTerminate: (listener: () => void) => () => void;
}

/**
 * `rlm batch --queue redis://...`: puts the jobs on the BullMQ queue, where `rlm worker`
 * processes on any machine run them, and appends each result to `results` as it arrives, once
 * per id. Jobs queued by an earlier run of the same command are found again: an answered one
 * gives its answer, a failed one is queued anew. Resolves to the exit code (0 every job
 * answered, 1 some failed or were not run, 130/143 after a signal: the queued jobs stay queued).
 */
export async function runQueuedBatch(
  options: BatchOptions & { readonly queue: string },
  jobs: readonly BatchJob[],
  results: BatchResultsFile,
  io: QueuedBatchIo,
): Promise<number> {
  const connection = parseQueueUrl(options.queue);
  await checkQueueReachable(connection, options.queue);
  const { Job, Queue, QueueEvents } = await import('bullmq');
  const started = performance.now();
  const queue = new Queue(batchQueueName, { connection });
  const events = new QueueEvents(batchQueueName, { connection });
  const byJobId = new Map(jobs.map((job) => [queuedJobId(options.jobsFile, job), job]));
  const outstanding = new Set(byJobId.keys());
  let answered = 0;
  let failed = 0;
  let notRun = 0;
  let spent: RunUsage = emptyRunUsage();
  let finish: (exitCode?: number) => void = () => {};
  const finished = new Promise<number | undefined>((resolve) => {
    finish = resolve;
  });
  let capping = false;
  const stopStartingJobs = async () => {
    if (capping) return;
    capping = true;
    for (const jobId of [...outstanding]) {
      const job = await Job.fromId(queue, jobId);
      const state = await job?.getState();
      if (job && (state === 'waiting' || state === 'delayed' || state === 'prioritized')) {
        await job.remove().then(
          () => {
            if (outstanding.delete(jobId)) notRun++;
          },
          () => {},
        );
      }
    }
    if (outstanding.size === 0) finish();
  };
  const settle = (jobId: string, result: BatchResult) => {
    const job = byJobId.get(jobId);
    if (job === undefined || !outstanding.delete(jobId)) return;
    results.append({ ...result, id: job.id });
    spent = addRunUsage(spent, result.usage);
    if ('answer' in result) answered++;
    else failed++;
    const done = answered + failed;
    io.stderr.write(
      'answer' in result
        ? `rlm: [${done}/${jobs.length}] id ${job.key} answered in ${formatDuration(result.durationMs)} · ${formatTokens(result.usage)} · ${formatCost(result.usage)}\n`
        : `rlm: [${done}/${jobs.length}] id ${job.key} failed: ${result.error.message}\n`,
    );
    const cap = options.maxBatchCostUsd;
    if (cap !== undefined && (spent.costUsd ?? 0) >= cap) void stopStartingJobs();
    if (outstanding.size === 0) finish();
  };
  const failure = (jobId: string, message: string) => {
    const job = byJobId.get(jobId);
    if (job === undefined) return;
    settle(jobId, {
      id: job.id,
      error: { name: 'QueuedJobError', message },
      usage: emptyRunUsage(),
      durationMs: 0,
    });
  };
  events.on('completed', ({ jobId, returnvalue }) => {
    settle(jobId, readResult(returnvalue));
  });
  events.on('failed', ({ jobId, failedReason }) => failure(jobId, failedReason));
  const stop = (exitCode: number) => () => finish(exitCode);
  const unsubscribe = [io.onInterrupt(stop(130)), io.onTerminate(stop(143))];
  try {
    try {
      await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
    } catch (error) {
      throw new UsageError(
        `cannot reach the queue ${options.queue}: ${error instanceof Error ? error.message : String(error)}; start Redis or fix --queue`,
        { cause: error },
      );
    }
    for (const [jobId, job] of byJobId) {
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
      await queue.add('query', queuedJobData(job, options.run), {
        jobId,
        removeOnComplete: false,
        removeOnFail: false,
      });
    }
    io.stderr.write(
      `rlm: ${outstanding.size} ${outstanding.size === 1 ? 'job' : 'jobs'} on the queue ${options.queue}; run rlm worker --queue ${options.queue} to work on them\n`,
    );
    if (outstanding.size === 0) finish();
    const exitCode = await finished;
    if (exitCode !== undefined) {
      io.stderr.write(
        `rlm: stopped waiting; ${outstanding.size} ${outstanding.size === 1 ? 'job stays' : 'jobs stay'} on the queue: rerun the same command to collect ${outstanding.size === 1 ? 'its result' : 'their results'}\n`,
      );
      return exitCode;
    }
    if (notRun > 0) {
      io.stderr.write(
        `rlm: the batch spent ${formatCost(spent)} of --max-batch-cost $${options.maxBatchCostUsd}: ${notRun} ${notRun === 1 ? 'job' : 'jobs'} not run; rerun the same command with a higher cap to run them\n`,
      );
    }
    io.stderr.write(
      `rlm: batch done: ${answered} answered, ${failed} failed${notRun > 0 ? `, ${notRun} not run` : ''} · ${formatTokens(spent)} · ${formatCost(spent)} · ${formatDuration(performance.now() - started)}${options.outFile === undefined ? '' : ` · results in ${options.outFile}`}\n`,
    );
    return failed > 0 || notRun > 0 ? 1 : 0;
  } finally {
    for (const off of unsubscribe) off();
    await Promise.all([events.close(), queue.close()]).catch(() => {});
  }
}

/** A worker's return value (JSON text in events, parsed on the job), as a result line. */
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
