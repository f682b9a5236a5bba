import { hostname } from 'node:os';
import { type ArtifactStore, emptyRunUsage } from '@rlm/core';
import { contextAsText } from '@rlm/eval';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ContextRoot } from '../../context/context-root.js';
import { describeJobId } from '../../jobs/describe-job-id.js';
import {
  baselineFactsOf,
  type QueuedEvalFacts,
  type QueuedEvalResult,
} from '../../jobs/eval-run-result.js';
import { runBaselineJob } from '../../jobs/run-baseline-job.js';
import type { BatchResult } from '../../jobs/run-batch-query.js';
import { formatDuration } from '../../output/format-runs-table.js';
import type { QueuedJobData } from '../../queue/batch-queue-job.js';
import { causeOf } from '../../queue/rate-limited-log.js';
import { RunTally } from '../../rlm/run-tally.js';
import { JobClaims, type RunningJob } from './job-claims.js';
import { type JobPlan, JobPlanner, type JobPlannerParts } from './job-planner.js';
import { KeptResults } from './kept-results.js';
import { loadQueuedContext } from './load-queued-context.js';
import type { WorkerOptions } from './parse-worker-arguments.js';
import { runQueuedRlmJob } from './run-queued-rlm-job.js';
import { WorkerLog } from './worker-log.js';

/** What a worker runs jobs with, from its command line. */
export interface WorkerSettings extends Omit<WorkerOptions, 'contextRoot'> {
  /** `--context-root`: every job's context is read from under it only. */
  readonly contextRoot: ContextRoot;
}

/** What a worker makes RLMs from. */
export type WorkerRlmParts = Pick<JobPlannerParts, 'createRlm' | 'tools'>;

/**
 * The jobs of one worker: each claimed beside the queue (so a batch whose queue lost the job
 * sees it running, and a job queued again is not run twice at once), run on its own RLM and
 * store view, its result written beside the queue before BullMQ is told (kept and written again
 * until Redis takes it), and every line about it rate-limited per cause.
 */
export class WorkerJobs {
  readonly name = `${hostname()}:${process.pid}`;
  readonly #settings: WorkerSettings;
  readonly #redis: Redis;
  readonly #store: ArtifactStore | undefined;
  readonly #log: WorkerLog;
  readonly #planner: JobPlanner;
  readonly #kept: KeptResults;
  readonly #claims: JobClaims;
  /** Ids of the jobs seen, by queue job id, for messages about them. */
  readonly #ids = new Map<string, QueuedJobData['id']>();
  #quitting = false;

  constructor(
    settings: WorkerSettings,
    io: {
      readonly env: Readonly<Record<string, string | undefined>>;
      readonly stderr: NodeJS.WritableStream;
    },
    redis: Redis,
    store: ArtifactStore | undefined,
    parts: WorkerRlmParts,
  ) {
    this.#settings = settings;
    this.#redis = redis;
    this.#store = store;
    this.#log = new WorkerLog(io.stderr);
    this.#planner = new JobPlanner({ ...parts, cli: settings.cli, env: io.env, log: this.#log });
    const quitting = () => this.#quitting;
    this.#kept = new KeptResults(redis, settings, this.#log, quitting);
    this.#claims = new JobClaims({
      worker: this.name,
      redis,
      lockDurationMs: settings.lockDurationMs,
      kept: this.#kept,
      log: this.#log,
      quitting,
    });
    redis.on('error', (error: Error) => this.queueError(error));
  }

  /** BullMQ's processor: one job, to its result line. */
  async process(job: Job<QueuedJobData>): Promise<BatchResult> {
    const jobId = job.id!;
    const { id, query } = job.data;
    const shown = describeJobId(id);
    this.#ids.set(jobId, id);
    const keptResult = await this.#kept.read(jobId);
    if (keptResult) {
      this.#log.line(
        `rlm: worker: id ${shown}: its result was kept from an earlier run; given back`,
      );
      return keptResult;
    }
    let result: BatchResult;
    if (query.length > this.#settings.maxQueryChars) {
      result = {
        id,
        error: {
          name: 'QueryTooLongError',
          message: `the query has ${query.length.toLocaleString('en-US')} characters, over this worker's --max-query-chars ${this.#settings.maxQueryChars}; no model was called`,
        },
        usage: emptyRunUsage(),
        durationMs: 0,
      };
    } else {
      const claimed = await this.#claims.claim(jobId, shown);
      if ('result' in claimed) return claimed.result;
      this.#log.line(`rlm: worker: id ${shown} started`);
      try {
        result = await this.#run(job, claimed.running);
      } finally {
        this.#claims.finished(jobId);
      }
    }
    await this.#kept.keep(jobId, result);
    await this.#claims.release(jobId);
    const failures = result.storeFailures
      ? ` (the store failed ${result.storeFailures.count} ${result.storeFailures.count === 1 ? 'time' : 'times'})`
      : '';
    this.#log.line(
      `rlm: worker: id ${shown} ${'answer' in result ? 'answered' : `failed (${result.error.message})`} in ${formatDuration(result.durationMs)}${failures}`,
    );
    return result;
  }

  /** A BullMQ or Redis error, said once per cause every 10 s. */
  queueError(error: Error): void {
    const message = error.message;
    this.#log.noteOutOfMemory(message, this.#settings.queue, 'results');
    const missing = /Missing (?:key|lock) for job ([^\s.]+)/.exec(message);
    const id = missing ? this.#ids.get(missing[1]!) : undefined;
    if (id !== undefined) {
      this.#log.report(
        causeOf(message.replace(missing![1]!, '')),
        `rlm: worker: id ${describeJobId(id)}: the queue no longer holds this run of the job (Redis restarted without persistence, or the job went to another worker); its result is kept beside the queue for the batch`,
      );
      return;
    }
    this.#log.report(causeOf(message), `rlm: worker: ${message}`);
  }

  /** Prints the counts of the lines still held back (when the worker stops). */
  flush(): void {
    this.#log.flush();
  }

  /** A second signal: stops the running jobs and the writes still waiting for Redis. */
  quit(): void {
    this.#quitting = true;
    this.#claims.abortAll();
    const unwritten = this.#kept.unwrittenIds();
    if (unwritten.length > 0) {
      const ids = unwritten.map(describeJobId).join(', ');
      this.#log.line(
        `rlm: worker: quitting with the results of ids ${ids} not written to the queue: the batch runs them again`,
      );
    }
    this.#log.flush();
  }

  /**
   * Runs the job: on its own RLM and view of the store with this worker's flags, or with the
   * run settings it carries (an eval's variant within this worker's limits, or the direct
   * baseline), then with the facts the eval scores by.
   */
  async #run(job: Job<QueuedJobData>, running: RunningJob): Promise<BatchResult> {
    const { id, query, context } = job.data;
    let plan: JobPlan;
    try {
      plan = await this.#planner.plan(job.data);
    } catch (error) {
      return {
        id,
        error: { name: (error as Error).name, message: (error as Error).message },
        usage: emptyRunUsage(),
        durationMs: 0,
      };
    }
    const { cli, bounded } = plan;
    let contextChars: number | undefined;
    const loadJobContext = async () => {
      const value = await loadQueuedContext(
        context,
        cli.maxContextBytes,
        this.#settings.contextRoot,
      );
      // Measured for an eval only: the text of a large directory is not free.
      if (plan.kind !== 'own' && value !== undefined) contextChars = contextAsText(value).length;
      return value;
    };
    const withFacts = (result: BatchResult, facts: QueuedEvalFacts): QueuedEvalResult => ({
      ...result,
      eval: {
        ...facts,
        ...(contextChars === undefined ? {} : { contextChars }),
        ...(bounded.length === 0 ? {} : { bounded }),
      },
    });
    if (plan.kind === 'direct') {
      const { result, run } = await runBaselineJob({ id, query }, loadJobContext, {
        ...plan.baseline,
        signal: running.controller.signal,
      });
      return withFacts(result, baselineFactsOf(run));
    }
    const tally = new RunTally();
    const { result, runId } = await runQueuedRlmJob(
      job.data,
      running,
      plan,
      tally,
      loadJobContext,
      {
        store: this.#store,
        redis: this.#redis,
        artifactTtlMs: this.#settings.artifactTtlMs,
        log: this.#log,
      },
    );
    if (plan.kind === 'own') return result;
    const facts = { steps: tally.snapshot().iterations, subCalls: tally.subCalls };
    return withFacts(result, runId === undefined ? facts : { ...facts, runId });
  }
}
