import type { ArtifactStore } from '@rlm/core';
import { disposeThenClose } from '../../dispose-then-close.js';
import { checkQueueReachable } from '../../queue/check-queue-reachable.js';
import { parseQueueUrl } from '../../queue/parse-queue-url.js';
import { causeOf } from '../../queue/rate-limited-log.js';
import { createCliModels, createCliRlmFactory } from '../../rlm/create-cli-rlm.js';
import type { BatchCommandIo } from './batch-command-io.js';
import { batchHelp } from './batch-help.js';
import { BatchOutput } from './batch-output.js';
import { BatchResultsFile } from './batch-results-file.js';
import { openBatchResources } from './open-batch-resources.js';
import { parseBatchArguments } from './parse-batch-arguments.js';
import { queueBatchJobs } from './queue-batch-jobs.js';
import { readBatchJobs } from './read-batch-jobs.js';
import { runBatchJobs } from './run-batch-jobs.js';

/**
 * `rlm batch`: runs the jobs of a JSONL file (in this process, or through a Redis queue) and
 * appends their results as JSON lines. Resolves to the exit code; rejects with
 * {@link UsageError} (and `ContextLoadError` for the batch context) before any model is called.
 */
export async function runBatchCommand(
  argv: readonly string[],
  io: BatchCommandIo,
): Promise<number> {
  const command = parseBatchArguments(argv, io.env);
  if (command.kind === 'help') {
    io.stdout.write(batchHelp);
    return 0;
  }
  const options = command.options;
  const cli = options.run;
  // With a queue, the workers call the model: they need the key, this process does not.
  const models = options.queue === undefined ? await createCliModels(cli, io.env) : undefined;
  const { jobs, problems } = await readBatchJobs(options.jobsFile, options.maxQueryChars);
  for (const problem of problems) {
    io.stderr.write(`rlm: ${options.jobsFile}:${problem.line}: ${problem.message}; skipped\n`);
  }
  const queue =
    options.queue === undefined
      ? undefined
      : { url: options.queue, connection: parseQueueUrl(options.queue) };
  if (queue) await checkQueueReachable(queue.connection, queue.url, cli.connectTimeoutMs);
  const { results, opening } = BatchResultsFile.open(options.outFile, io.stdout);
  let store: ArtifactStore | undefined;
  const output = new BatchOutput(options, io, results, problems.length);
  try {
    if (opening.tookOverFrom) {
      io.stderr.write(
        `rlm: took over --out ${options.outFile} from process ${opening.tookOverFrom.pid} on ${opening.tookOverFrom.hostname}, which is gone\n`,
      );
    }
    if (opening.removedTornBytes > 0) {
      io.stderr.write(
        `rlm: the last line of ${options.outFile} was cut short (a batch stopped mid-write); removed its ${opening.removedTornBytes} bytes: its job runs again\n`,
      );
    }
    const pending = jobs.filter((job) => !opening.answered.has(job.key));
    const skipped = jobs.length - pending.length;
    if (skipped > 0 && !cli.quiet) {
      io.stderr.write(
        `rlm: ${skipped} ${skipped === 1 ? 'id is' : 'ids are'} already answered in ${options.outFile}; skipping ${skipped === 1 ? 'it' : 'them'}\n`,
      );
    }
    if (queue) {
      return await output.consume(pending, (signal) =>
        queueBatchJobs(pending, {
          queue: queue.url,
          connection: queue.connection,
          jobsFile: options.jobsFile,
          cli,
          maxBatchCostUsd: options.maxBatchCostUsd,
          maxArtifactBytes: options.maxBatchArtifactBytes,
          stallTimeoutMs: options.stallTimeoutMs,
          signal,
          report: (line) => output.line(line),
        }),
      );
    }
    const { context, contextRoot, tools, ...resources } = await openBatchResources(
      options,
      io.stderr,
    );
    store = resources.store;
    const createRlm = createCliRlmFactory(cli, models!, { tools, persistent: false });
    const batchStore = store;
    return await output.consume(pending, (signal) =>
      runBatchJobs(pending, {
        createRlm,
        store: batchStore,
        concurrency: options.concurrency,
        maxBatchCostUsd: options.maxBatchCostUsd,
        maxArtifactBytes: options.maxBatchArtifactBytes,
        context: context?.value,
        directoryContext: { concat: cli.concat, ...cli.contextSelection },
        contextRoot,
        maxContextBytes: cli.maxContextBytes,
        model: cli.model,
        subModel: cli.subModel,
        signal,
        onStart: (job, tally) => output.started(job, tally),
        onEnd: (job) => output.ended(job),
        onEvent: (job, event) => output.event(job, event),
        onStoreFailure: (job, failure) => output.storeFailed(job, failure),
        report: (job, line) => output.jobNotice(job, line.replace(/^rlm: /, ''), causeOf(line)),
      }),
    );
  } finally {
    output.closeResults();
    await disposeThenClose(undefined, store);
  }
}
