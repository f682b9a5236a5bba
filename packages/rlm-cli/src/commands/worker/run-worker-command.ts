import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type ArtifactStore, defaultModelPrices, emptyRunUsage, findModelPrice } from '@rlm/core';
import { contextAsText, type DirectBaselineSettings } from '@rlm/eval';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { applyQueuedRunSettings } from './apply-queued-run-settings.js';
import { parseWorkerArguments, type WorkerOptions } from './parse-worker-arguments.js';
import { workerHelp } from './worker-help.js';
import { limitBatchArtifacts, redisArtifactCounter } from '../../jobs/batch-artifact-quota.js';
import {
  batchQueueName,
  type JobClaim,
  parseJobClaim,
  type QueuedContext,
  type QueuedJobData,
  queueKeys,
} from '../../queue/batch-queue-job.js';
import { checkQueueReachable } from '../../queue/check-queue-reachable.js';
import { checkToolStoreDirectory } from '../../store/check-tool-store-directory.js';
import {
  baselineFactsOf,
  type QueuedEvalFacts,
  type QueuedEvalResult,
} from '../../jobs/eval-run-result.js';
import { runBaselineJob } from '../../jobs/run-baseline-job.js';
import { createCliModel } from '../../rlm/create-cli-model.js';
import { createCliModels, createCliRlmFactory } from '../../rlm/create-cli-rlm.js';
import { describeJobId } from '../../jobs/describe-job-id.js';
import { disposeThenClose } from '../../dispose-then-close.js';
import { formatModelRetry } from '../../rlm/format-model-retry.js';
import { ModelCallNames } from '../../rlm/model-call-names.js';
import { formatDuration } from '../../output/format-runs-table.js';
import { ContextRoot } from '../../context/context-root.js';
import { loadContext } from '../../context/load-context.js';
import { loadToolsModule } from '../../rlm/load-tools-module.js';
import { isRedisUrl, openStore } from '../../store/open-store.js';
import type { CliOptions } from '../../run-options/run-options.js';
import {
  modelText,
  type QueuedRunSettings,
  readQueuedRunSettings,
} from '../../queue/queued-run-settings.js';
import { causeOf, RateLimitedLog } from '../../queue/rate-limited-log.js';
import { type BatchResult, runBatchQuery } from '../../jobs/run-batch-query.js';
import { RunTally } from '../../rlm/run-tally.js';
import { subscribeToSignal } from '../../subscribe-to-signal.js';
import { UsageError } from '../../usage-error.js';
import { StoreFailureWatch } from '../../store/watch-store-failures.js';
import { redactPassword } from '../../queue/redact-password.js';

/** What `rlm worker` writes to and listens on. */
export interface WorkerCommandIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly onInterrupt?: (listener: () => void) => () => void;
  readonly onTerminate?: (listener: () => void) => () => void;
}

/**
 * `rlm worker`: takes jobs from the BullMQ queue of `rlm batch --queue` and returns their result
 * lines. A job is claimed with a lock its worker renews; when a worker is killed, BullMQ's
 * stalled-job check hands the job to another worker, which resumes it from its checkpoint when
 * the workers share a store. Resolves to the exit code once stopped.
 */
export async function runWorkerCommand(
  argv: readonly string[],
  io: WorkerCommandIo,
): Promise<number> {
  const command = parseWorkerArguments(argv, io.env);
  if (command.kind === 'help') {
    io.stdout.write(workerHelp);
    return 0;
  }
  const { contextRoot, ...options } = command.options;
  const { cli } = options;
  const { connection } = options;
  const settings: WorkerSettings = { ...options, contextRoot: await ContextRoot.open(contextRoot) };
  const models = await createCliModels(cli, io.env);
  await checkQueueReachable(connection, settings.queue, cli.connectTimeoutMs);
  const tools = cli.toolsModule ? await loadToolsModule(cli.toolsModule) : [];
  let store: ArtifactStore | undefined;
  let redis: Redis | undefined;
  let jobs: WorkerJobs | undefined;
  try {
    store = cli.storePath
      ? await openStore(cli.storePath, {
          connectTimeoutMs: cli.connectTimeoutMs,
          ...(isRedisUrl(cli.storePath) ? { ttlMs: settings.artifactTtlMs } : {}),
        })
      : undefined;
    if (cli.toolStore) await checkToolStoreDirectory(cli.toolStore, { writable: true });
    const createRlm = createCliRlmFactory(cli, models, { tools, persistent: false });
    const [{ Worker }, { Redis }] = await Promise.all([import('bullmq'), import('ioredis')]);
    // Results, claims and counters: a command waits through an outage instead of failing.
    redis = new Redis({ ...connection, maxRetriesPerRequest: null });
    const runner = new WorkerJobs(settings, io, redis, store, { createRlm, tools });
    jobs = runner;
    const queueWorker = new Worker<QueuedJobData, BatchResult>(
      batchQueueName,
      (job) => runner.process(job),
      {
        connection: { ...connection, maxRetriesPerRequest: null },
        concurrency: settings.concurrency,
        lockDuration: settings.lockDurationMs,
        stalledInterval: Math.max(500, Math.floor(settings.lockDurationMs / 2)),
        maxStalledCount: 3,
        name: runner.name,
      },
    );
    queueWorker.on('error', (error) => runner.queueError(error));
    try {
      await queueWorker.waitUntilReady();
    } catch (error) {
      await queueWorker.close(true).catch(() => {});
      throw new UsageError(
        `cannot reach the queue ${redactPassword(settings.queue)}: ${error instanceof Error ? error.message : String(error)}; start Redis or fix --queue`,
        { cause: error },
      );
    }
    io.stderr.write(
      `rlm: worker ${runner.name} on ${redactPassword(settings.queue)}, ${settings.concurrency} ${settings.concurrency === 1 ? 'job' : 'jobs'} at once; Ctrl-C to stop\n`,
    );
    return await new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (code: number) => () => {
        if (stopping) {
          runner.quit();
          resolve(code);
          return;
        }
        stopping = true;
        io.stderr.write(
          'rlm: worker: stopping once the running jobs end (again to quit at once)\n',
        );
        queueWorker.close().then(
          () => resolve(code),
          () => resolve(code),
        );
      };
      const offInterrupt = (io.onInterrupt ?? subscribeToSignal('SIGINT'))(stop(130));
      const offTerminate = (io.onTerminate ?? subscribeToSignal('SIGTERM'))(stop(143));
      queueWorker.on('closed', () => {
        offInterrupt();
        offTerminate();
      });
    });
  } finally {
    jobs?.flush();
    redis?.disconnect();
    await disposeThenClose(undefined, store);
  }
}

/** What a worker runs jobs with, from its command line. */
interface WorkerSettings extends Omit<WorkerOptions, 'contextRoot'> {
  /** `--context-root`: every job's context is read from under it only. */
  readonly contextRoot: ContextRoot;
}

/** Makes a job's RLM on its view of the store. */
type RlmFactory = ReturnType<typeof createCliRlmFactory>;

/** What a worker makes RLMs from. */
interface WorkerRlmParts {
  /** The RLMs of the worker's own flags. */
  readonly createRlm: RlmFactory;
  /** `--tools`: every job's host tools. */
  readonly tools: Parameters<typeof createCliRlmFactory>[2]['tools'];
}

/** How a job runs: with the worker's flags, the settings it carries, or as the direct baseline. */
type JobPlan =
  | {
      readonly kind: 'own' | 'rlm';
      readonly cli: CliOptions;
      readonly bounded: readonly string[];
      readonly createRlm: RlmFactory;
    }
  | {
      readonly kind: 'direct';
      readonly cli: CliOptions;
      readonly bounded: readonly string[];
      readonly baseline: Omit<DirectBaselineSettings, 'signal'>;
    };

/** RLM factories a worker keeps for the settings of jobs (an eval's variants). */
const keptFactories = 8;

/** A job this worker runs now: its claim, kept fresh while it runs. */
interface RunningJob {
  claim: JobClaim;
  readonly controller: AbortController;
}

/**
 * The jobs of one worker: each claimed beside the queue (so a batch whose queue lost the job
 * sees it running, and a job queued again is not run twice at once), run on its own RLM and
 * store view, its result written beside the queue before BullMQ is told (kept and written again
 * until Redis takes it), and every line about it rate-limited per cause.
 */
class WorkerJobs {
  readonly name = `${hostname()}:${process.pid}`;
  readonly #settings: WorkerSettings;
  readonly #io: WorkerCommandIo;
  readonly #redis: Redis;
  readonly #store: ArtifactStore | undefined;
  readonly #createRlm: RlmFactory;
  readonly #tools: WorkerRlmParts['tools'];
  /** RLM factories of the run settings jobs carried lately (eval variants), by settings. */
  readonly #factories = new Map<string, RlmFactory>();
  readonly #notices: RateLimitedLog;
  readonly #running = new Map<string, RunningJob>();
  /** Ids of the jobs seen, by queue job id, for messages about them. */
  readonly #ids = new Map<string, QueuedJobData['id']>();
  /** Results not yet written beside the queue, by queue job id. */
  readonly #unwritten = new Map<string, QueuedJobData['id']>();
  /** Redis servers already said to be out of memory. */
  readonly #outOfMemory = new Set<string>();
  #quitting = false;

  constructor(
    settings: WorkerSettings,
    io: WorkerCommandIo,
    redis: Redis,
    store: ArtifactStore | undefined,
    parts: WorkerRlmParts,
  ) {
    this.#settings = settings;
    this.#io = io;
    this.#redis = redis;
    this.#store = store;
    this.#createRlm = parts.createRlm;
    this.#tools = parts.tools;
    this.#notices = new RateLimitedLog((line) => this.#line(line), { prefix: 'rlm: worker: ' });
    const heartbeat = setInterval(
      () => this.#refreshClaims(),
      Math.max(250, Math.floor(settings.lockDurationMs / 3)),
    );
    heartbeat.unref();
    // Back after an outage (a restart wiped the claims): claim the running jobs again at once.
    redis.on('ready', () => this.#refreshClaims());
    redis.on('error', (error: Error) => this.queueError(error));
  }

  /** BullMQ's processor: one job, to its result line. */
  async process(job: Job<QueuedJobData>): Promise<BatchResult> {
    const jobId = job.id!;
    const { id, query } = job.data;
    const shown = describeJobId(id);
    this.#ids.set(jobId, id);
    const kept = await this.#redis.get(queueKeys.result(jobId));
    const keptResult = readKeptResult(kept);
    if (keptResult) {
      this.#line(`rlm: worker: id ${shown}: its result was kept from an earlier run; given back`);
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
      const claimed = await this.#claim(jobId, shown);
      if ('result' in claimed) return claimed.result;
      this.#line(`rlm: worker: id ${shown} started`);
      try {
        result = await this.#run(job, claimed.running);
      } finally {
        this.#running.delete(jobId);
      }
    }
    await this.#keep(jobId, result);
    await this.#release(jobId);
    const failures = result.storeFailures
      ? ` (the store failed ${result.storeFailures.count} ${result.storeFailures.count === 1 ? 'time' : 'times'})`
      : '';
    this.#line(
      `rlm: worker: id ${shown} ${'answer' in result ? 'answered' : `failed (${result.error.message})`} in ${formatDuration(result.durationMs)}${failures}`,
    );
    return result;
  }

  /** A BullMQ or Redis error, said once per cause every 10 s. */
  queueError(error: Error): void {
    const message = error.message;
    this.#noteOutOfMemory(message, this.#settings.queue, 'results');
    const missing = /Missing (?:key|lock) for job ([^\s.]+)/.exec(message);
    const id = missing ? this.#ids.get(missing[1]!) : undefined;
    if (id !== undefined) {
      this.#notices.report(
        causeOf(message.replace(missing![1]!, '')),
        `rlm: worker: id ${describeJobId(id)}: the queue no longer holds this run of the job (Redis restarted without persistence, or the job went to another worker); its result is kept beside the queue for the batch`,
      );
      return;
    }
    this.#notices.report(causeOf(message), `rlm: worker: ${message}`);
  }

  /** Prints the counts of the lines still held back (when the worker stops). */
  flush(): void {
    this.#notices.flush();
  }

  /** A second signal: stops the running jobs and the writes still waiting for Redis. */
  quit(): void {
    this.#quitting = true;
    for (const running of this.#running.values()) running.controller.abort();
    if (this.#unwritten.size > 0) {
      const ids = [...this.#unwritten.values()].map(describeJobId).join(', ');
      this.#line(
        `rlm: worker: quitting with the results of ids ${ids} not written to the queue: the batch runs them again`,
      );
    }
    this.#notices.flush();
  }

  /**
   * Claims the job beside the queue. Another run of it claimed by a live worker is waited for
   * (its result is given back) instead of running the job twice at once.
   */
  async #claim(
    jobId: string,
    shown: string,
  ): Promise<{ readonly running: RunningJob } | { readonly result: BatchResult }> {
    const key = queueKeys.claim(jobId);
    let said = false;
    for (;;) {
      const now = Date.now();
      const claim: JobClaim = {
        worker: this.name,
        token: randomBytes(8).toString('hex'),
        startedAt: now,
        progressAt: now,
      };
      const taken = await this.#redis.set(
        key,
        JSON.stringify(claim),
        'PX',
        this.#settings.lockDurationMs,
        'NX',
      );
      if (taken === 'OK') {
        const running = { claim, controller: new AbortController() };
        this.#running.set(jobId, running);
        return { running };
      }
      const [other, kept] = await Promise.all([
        this.#redis.get(key).then(parseJobClaim),
        this.#redis.get(queueKeys.result(jobId)).then(readKeptResult),
      ]);
      if (kept) return { result: kept };
      if (other && !said) {
        said = true;
        this.#line(
          `rlm: worker: id ${shown} is already running on worker ${other.worker} (since ${new Date(other.startedAt).toISOString()}): waiting for its result instead of running it again`,
        );
      }
      if (this.#quitting) throw new Error('the worker is quitting');
      await sleep(Math.min(1000, this.#settings.lockDurationMs / 3));
    }
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
      plan = await this.#plan(job.data);
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
    const { result, runId } = await this.#runRlm(job.data, running, plan, tally, loadJobContext);
    if (plan.kind === 'own') return result;
    const facts = { steps: tally.snapshot().iterations, subCalls: tally.subCalls };
    return withFacts(result, runId === undefined ? facts : { ...facts, runId });
  }

  /**
   * How to run a job: with this worker's flags, or with the settings it carries, checked and
   * bounded by this worker's. Throws for settings this worker refuses and for a model it has no
   * key for.
   */
  async #plan(data: QueuedJobData): Promise<JobPlan> {
    const own = this.#settings.cli;
    if (data.run === undefined) {
      return { kind: 'own', cli: own, bounded: [], createRlm: this.#createRlm };
    }
    const settings = readQueuedRunSettings(data.run);
    const { cli, bounded } = applyQueuedRunSettings(own, settings);
    if (bounded.length > 0) {
      this.#notices.report(
        causeOf(`bounded ${bounded.join(' ')}`),
        `rlm: worker: id ${describeJobId(data.id)}: it asks for more than this worker allows (${bounded.join(', ')}): this worker's limits apply`,
      );
    }
    if (settings.kind === 'rlm') {
      return { kind: 'rlm', cli, bounded, createRlm: await this.#factoryFor(settings, cli) };
    }
    return {
      kind: 'direct',
      cli,
      bounded,
      baseline: {
        model: await createCliModel(cli.model, this.#io.env, cli.modelCalls),
        windowTokens: settings.windowTokens!,
        price: findModelPrice({ ...defaultModelPrices, ...cli.prices }, modelText(cli.model)),
      },
    };
  }

  /**
   * The RLM factory of a job's settings: kept for the last few settings (an eval's variants),
   * so that their jobs share models and a warm sandbox.
   */
  async #factoryFor(settings: QueuedRunSettings, cli: CliOptions): Promise<RlmFactory> {
    const key = JSON.stringify(settings);
    const kept = this.#factories.get(key);
    if (kept !== undefined) return kept;
    const factory = createCliRlmFactory(cli, await createCliModels(cli, this.#io.env), {
      tools: this.#tools,
      persistent: false,
    });
    if (this.#factories.size >= keptFactories) {
      this.#factories.delete(this.#factories.keys().next().value!);
    }
    this.#factories.set(key, factory);
    return factory;
  }

  /** Runs the job on its own RLM and view of the store. */
  async #runRlm(
    data: QueuedJobData,
    running: RunningJob,
    plan: Extract<JobPlan, { readonly createRlm: RlmFactory }>,
    tally: RunTally,
    context: () => Promise<unknown>,
  ): Promise<{ readonly result: BatchResult; readonly runId: string | undefined }> {
    const { id, query, batch } = data;
    const shown = describeJobId(id);
    const cli = plan.cli;
    const watch = new StoreFailureWatch((failure) => {
      this.#noteOutOfMemory(failure.message, cli.storePath ?? '', 'artifacts and checkpoints');
      this.#notices.report(
        causeOf(`${failure.operation} ${failure.message}`),
        `rlm: worker: id ${shown}: the store failed (${failure.operation}): ${failure.message}; the job goes on, but what it stores may be lost`,
      );
    });
    const store = this.#store;
    const limit = batch?.maxArtifactBytes;
    const view =
      store &&
      watch.wrap(
        limit === undefined || batch === undefined
          ? store
          : limitBatchArtifacts(
              store,
              redisArtifactCounter(
                this.#redis,
                queueKeys.artifactBytes(batch.id),
                this.#settings.artifactTtlMs,
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
              this.#line(formatModelRetry(event, call, `rlm: worker: id ${shown}: `).trimEnd());
            }
          },
          store,
          // Taken over from a killed worker: continue from its last checkpoint. Not an eval's
          // job: the variants of an item share its checkpoints' key, so one could resume
          // another's run.
          resume: store !== undefined && plan.kind === 'own',
          report: (line) =>
            this.#notices.report(
              causeOf(line),
              line.replace(/^rlm: /, `rlm: worker: id ${shown}: `),
            ),
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

  /**
   * Writes the result beside the queue, for the batch to find whatever becomes of the job in
   * the queue; a refusal (out of memory, ...) is said and the write tried again, until it is
   * taken or the worker quits. An outage is waited through.
   */
  async #keep(jobId: string, result: BatchResult): Promise<void> {
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
            this.#line(`rlm: worker: id ${shown}: its kept result is written to the queue now`);
          }
          return;
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          this.#noteOutOfMemory(message, this.#settings.queue, 'results');
          this.#notices.report(
            causeOf(`result ${message}`),
            `rlm: worker: id ${shown}: the queue refused its result (${message}); keeping it and trying again`,
          );
          if (this.#quitting) throw error;
          await sleep(Math.min(500 * 2 ** attempt, 10_000));
        }
      }
    } finally {
      this.#unwritten.delete(jobId);
    }
  }

  /** Drops the job's claim, if it is still this worker's. */
  async #release(jobId: string): Promise<void> {
    const key = queueKeys.claim(jobId);
    const claim = parseJobClaim(await this.#redis.get(key).catch(() => null));
    if (claim?.worker === this.name) await this.#redis.del(key).catch(() => {});
  }

  /** Writes every running job's claim again, with its latest progress. */
  #refreshClaims(): void {
    for (const [jobId, running] of this.#running) {
      this.#redis
        .set(
          queueKeys.claim(jobId),
          JSON.stringify(running.claim),
          'PX',
          this.#settings.lockDurationMs,
        )
        .catch(() => {});
    }
  }

  /** Says once per Redis server that it refuses writes for want of memory. */
  #noteOutOfMemory(message: string, url: string, what: string): void {
    if (!/\bOOM\b/.test(message) || this.#outOfMemory.has(url)) return;
    this.#outOfMemory.add(url);
    this.#line(
      `rlm: worker: Redis at ${redactPassword(url)} refuses writes: it is out of memory (maxmemory); ${what} cannot be kept until memory is freed: raise maxmemory, free keys, or lower --artifact-ttl (said once)`,
    );
  }

  #line(text: string): void {
    this.#io.stderr.write(`${text}\n`);
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

/**
 * Loads a queued job's context on this machine, only from under `root`: the queue names the
 * paths, and whoever can write to it must not make the worker read its secrets.
 */
async function loadQueuedContext(
  context: QueuedContext | undefined,
  maxBytes: number,
  root: ContextRoot,
): Promise<unknown> {
  if (context === undefined) return undefined;
  const loaded = await loadContext({ ...context, root, maxBytes });
  return loaded?.value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
