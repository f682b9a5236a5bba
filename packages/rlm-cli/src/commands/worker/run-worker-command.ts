import type { ArtifactStore } from '@rlm/core';
import type { Redis } from 'ioredis';
import { ContextRoot } from '../../context/context-root.js';
import { disposeThenClose } from '../../dispose-then-close.js';
import type { BatchResult } from '../../jobs/run-batch-query.js';
import { batchQueueName, type QueuedJobData } from '../../queue/batch-queue-job.js';
import { checkQueueReachable } from '../../queue/check-queue-reachable.js';
import { redactPassword } from '../../queue/redact-password.js';
import { createCliModels, createCliRlmFactory } from '../../rlm/create-cli-rlm.js';
import { loadToolsModule } from '../../rlm/load-tools-module.js';
import { checkToolStoreDirectory } from '../../store/check-tool-store-directory.js';
import { isRedisUrl, openStore } from '../../store/open-store.js';
import { subscribeToSignal } from '../../subscribe-to-signal.js';
import { UsageError } from '../../usage-error.js';
import { parseWorkerArguments } from './parse-worker-arguments.js';
import { WorkerJobs, type WorkerSettings } from './worker-jobs.js';
import { workerHelp } from './worker-help.js';

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
