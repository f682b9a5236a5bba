import { hostname } from 'node:os';
import type { ArtifactStore, RLM } from '@rlm/core';
import { batchQueueName, type QueuedContext, type QueuedJobData } from './batch-queue-job.js';
import { checkQueueReachable } from './check-queue-reachable.js';
import { checkToolStoreDirectory } from './check-tool-store-directory.js';
import { createCliModels, createCliRlm } from './create-cli-rlm.js';
import { formatDuration } from './format-runs-table.js';
import { ContextRoot } from './context-root.js';
import { loadContext } from './load-context.js';
import { loadToolsModule } from './load-tools-module.js';
import { openStore } from './open-store.js';
import { parseArguments } from './parse-arguments.js';
import { parseQueueUrl } from './parse-queue-url.js';
import { runBatchQuery } from './run-batch-query.js';
import { RunTally } from './run-tally.js';
import { UsageError } from './usage-error.js';
import { disposeThenClose } from './dispose-then-close.js';

/** What `rlm worker` writes to and listens on. */
export interface WorkerCommandIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly onInterrupt?: (listener: () => void) => () => void;
  readonly onTerminate?: (listener: () => void) => () => void;
}

const workerHelp = `Usage: rlm worker --queue redis://host:port [--concurrency <n>] [--lock-duration <time>]
                  [--context-root <dir>] [--store redis://host:port] [run flags]

Runs the jobs rlm batch --queue puts on the queue, until stopped (Ctrl-C or SIGTERM: the
running jobs finish first; a second signal quits at once). Start any number, on any machine
that sees the same context files at the same paths.

      --queue <url>            the Redis server of the queue (required)
      --context-root <dir>     the directory every job's context must lie in, symbolic links
                               resolved (default: the working directory); a job whose
                               context is outside it, a device, a FIFO or a /proc file fails
                               saying so, and the worker goes on
      --concurrency <n>        jobs run at once by this worker (default 2)
      --lock-duration <time>   how long a job stays claimed without news from its worker
                               (default 30s); a killed worker's job goes to another after it
      --store redis://...      share checkpoints between workers: a job taken over from a
                               killed worker resumes from its last checkpoint

Every run flag (--model, --max-cost, --max-model-calls, --tools, ...) applies to each job.
`;

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
  const own: Record<string, string> = {};
  const rest: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index]!;
    const match = /^--(queue|concurrency|lock-duration|context-root)(?:=(.*))?$/.exec(word);
    if (match === null) {
      rest.push(word);
      continue;
    }
    const value = match[2] ?? argv[++index];
    if (value === undefined || (match[2] === undefined && value.startsWith('-'))) {
      throw new UsageError(`--${match[1]} needs a value`);
    }
    own[match[1]!] = value;
  }
  const command = parseArguments(rest, io.env);
  if (command.kind === 'help') {
    io.stdout.write(workerHelp);
    return 0;
  }
  if (command.kind !== 'run' || command.options.query !== undefined) {
    throw new UsageError(
      'rlm worker takes no query: the queue gives it jobs; see rlm worker --help',
    );
  }
  const cli = command.options;
  if (own.queue === undefined) {
    throw new UsageError(
      'rlm worker needs --queue redis://host:port, the queue of rlm batch --queue',
    );
  }
  const connection = parseQueueUrl(own.queue);
  const concurrency = positiveWhole(own.concurrency ?? '2', '--concurrency');
  const lockDurationMs = parseSeconds(own['lock-duration'] ?? '30s');
  const contextRoot = await ContextRoot.open(own['context-root'] ?? process.cwd());
  const models = createCliModels(cli, io.env);
  await checkQueueReachable(connection, own.queue);
  const tools = cli.toolsModule ? await loadToolsModule(cli.toolsModule) : [];
  let store: ArtifactStore | undefined;
  let rlm: RLM | undefined;
  try {
    store = cli.storePath ? await openStore(cli.storePath) : undefined;
    if (cli.toolStore) await checkToolStoreDirectory(cli.toolStore, { writable: true });
    rlm = createCliRlm(cli, models, {
      tools,
      artifacts: store,
      persistent: false,
    });
    const { Worker } = await import('bullmq');
    const running = new Set<AbortController>();
    const workerRlm = rlm;
    const workerStore = store;
    const worker = new Worker<QueuedJobData>(
      batchQueueName,
      async (job) => {
        const { id, query, context } = job.data;
        const controller = new AbortController();
        running.add(controller);
        io.stderr.write(`rlm: worker: id ${JSON.stringify(id)} started\n`);
        try {
          const { result } = await runBatchQuery(
            workerRlm,
            { id, query },
            {
              context: () => loadQueuedContext(context, cli.maxContextBytes, contextRoot),
              signal: controller.signal,
              tally: new RunTally(),
              store: workerStore,
              // Taken over from a killed worker: continue from its last checkpoint.
              resume: workerStore !== undefined,
              report: (line) => io.stderr.write(`${line}\n`),
              model: cli.model,
              subModel: cli.subModel,
            },
          );
          io.stderr.write(
            `rlm: worker: id ${JSON.stringify(id)} ${'answer' in result ? 'answered' : `failed (${result.error.message})`} in ${formatDuration(result.durationMs)}\n`,
          );
          return result;
        } finally {
          running.delete(controller);
        }
      },
      {
        connection: { ...connection, maxRetriesPerRequest: null },
        concurrency,
        lockDuration: lockDurationMs,
        stalledInterval: Math.max(500, Math.floor(lockDurationMs / 2)),
        maxStalledCount: 3,
        name: `${hostname()}:${process.pid}`,
      },
    );
    worker.on('error', (error) => io.stderr.write(`rlm: worker: ${error.message}\n`));
    try {
      await worker.waitUntilReady();
    } catch (error) {
      await worker.close(true).catch(() => {});
      throw new UsageError(
        `cannot reach the queue ${own.queue}: ${error instanceof Error ? error.message : String(error)}; start Redis or fix --queue`,
        { cause: error },
      );
    }
    io.stderr.write(
      `rlm: worker ${hostname()}:${process.pid} on ${own.queue}, ${concurrency} ${concurrency === 1 ? 'job' : 'jobs'} at once; Ctrl-C to stop\n`,
    );
    const exitCode = await new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (code: number) => () => {
        if (stopping) {
          for (const controller of running) controller.abort();
          resolve(code);
          return;
        }
        stopping = true;
        io.stderr.write(
          'rlm: worker: stopping once the running jobs end (again to quit at once)\n',
        );
        worker.close().then(
          () => resolve(code),
          () => resolve(code),
        );
      };
      const offInterrupt = (io.onInterrupt ?? subscribeTo('SIGINT'))(stop(130));
      const offTerminate = (io.onTerminate ?? subscribeTo('SIGTERM'))(stop(143));
      worker.on('closed', () => {
        offInterrupt();
        offTerminate();
      });
    });
    return exitCode;
  } finally {
    await disposeThenClose(rlm, store);
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

function positiveWhole(text: string, flag: string): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`${flag} needs a positive whole number (got ${JSON.stringify(text)})`);
  }
  return value;
}

/** `30s`, `2m`, `1500ms` or milliseconds, as milliseconds. */
function parseSeconds(text: string): number {
  const match = /^(\d+)\s*(ms|s|m)?$/i.exec(text.trim());
  const unit = { '': 1, ms: 1, s: 1000, m: 60_000 }[(match?.[2] ?? '').toLowerCase() as '']!;
  const value = match === null ? Number.NaN : Number(match[1]) * unit;
  if (!Number.isSafeInteger(value) || value < 1000) {
    throw new UsageError(
      `--lock-duration needs a duration of at least 1s such as 30s or 2m (got ${JSON.stringify(text)})`,
    );
  }
  return value;
}

function subscribeTo(signal: NodeJS.Signals) {
  return (listener: () => void) => {
    process.on(signal, listener);
    return () => {
      process.off(signal, listener);
    };
  };
}
