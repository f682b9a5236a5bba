import path from 'node:path';
import type { ArtifactStore } from '@rlm/core';
import { type EvalResult, findContextWindow, formatEvalSummary, summarizeEval } from '@rlm/eval';
import type { BatchResult } from '../../jobs/run-batch-query.js';
import { asWrittenWithRoundedCosts } from '../../output/round-costs.js';
import { checkQueueReachable } from '../../queue/check-queue-reachable.js';
import { parseQueueUrl } from '../../queue/parse-queue-url.js';
import { createCliModel } from '../../rlm/create-cli-model.js';
import { createCliModels } from '../../rlm/create-cli-rlm.js';
import type { CliOptions } from '../../run-options/run-options.js';
import { openStore } from '../../store/open-store.js';
import { UsageError } from '../../usage-error.js';
import { BatchResultsFile } from '../batch/batch-results-file.js';
import { openBatchResources } from '../batch/open-batch-resources.js';
import type { BatchCommandIo } from '../batch/batch-command-io.js';
import { BatchOutput } from '../batch/batch-output.js';
import { closeScorer, createEvalScorer, describeScorer } from './create-eval-scorer.js';
import { EvalResultLines } from './eval-result-lines.js';
import { localEvalBatch } from './local-eval-batch.js';
import { baselineVariant, type EvalOptions } from './parse-eval-arguments.js';
import { queuedEvalBatch } from './queued-eval-batch.js';
import { readEvalDataset } from './read-eval-dataset.js';
import { readJudgeRubric } from './read-judge-rubric.js';
import { scoreEvalOutcomes } from './score-eval-outcomes.js';
import { writeEvalReport } from './write-eval-report.js';

/** One `rlm eval` invocation: its models, scorer, variants, results and report. */
export class EvalCommand {
  readonly #options: EvalOptions;
  readonly #io: BatchCommandIo;
  /** Lines from an earlier run of the same command (`--out`), the last per pair. */
  readonly #results = new EvalResultLines();

  constructor(options: EvalOptions, io: BatchCommandIo) {
    this.#options = options;
    this.#io = io;
  }

  async run(): Promise<number> {
    const options = this.#options;
    const base = options.batch.run;
    const io = this.#io;
    const queue =
      options.batch.queue === undefined
        ? undefined
        : { url: options.batch.queue, connection: parseQueueUrl(options.batch.queue) };
    // Keys are checked first, before any file is read or any model is called. With a queue the
    // workers call the models: only the judge's key is needed here.
    const variantModels = queue
      ? undefined
      : await Promise.all(options.variants.map((variant) => createCliModels(variant.run, io.env)));
    const windowTokens = options.baseline ? this.#baselineWindow(base) : undefined;
    const baselineModel =
      queue || windowTokens === undefined
        ? undefined
        : await createCliModel(base.model, io.env, base.modelCalls);
    const judgeModel =
      options.scorer.kind === 'judge'
        ? await createCliModel(options.judgeModel, io.env, base.modelCalls)
        : undefined;
    const dataset = await readEvalDataset(options.batch.jobsFile);
    for (const problem of dataset.problems) {
      io.stderr.write(
        `rlm: ${options.batch.jobsFile}:${problem.line}: ${problem.message}; skipped\n`,
      );
    }
    const scorer = await createEvalScorer(options, judgeModel);
    if (queue) await checkQueueReachable(queue.connection, queue.url, base.connectTimeoutMs);
    let store: ArtifactStore | undefined;
    let output: BatchOutput | undefined;
    try {
      // The lock on --out first: then what it holds is this eval's to read.
      const { results } = BatchResultsFile.open(options.batch.outFile, io.stdout);
      output = new BatchOutput(options.batch, io, results, dataset.problems.length, describeResult);
      const resources = queue ? undefined : await openBatchResources(options.batch, io.stderr);
      store = resources?.store;
      if (queue && options.reportFile !== undefined && base.storePath !== undefined) {
        // The report links the traces the workers kept: in this store when they share it.
        store = await openStore(base.storePath, { connectTimeoutMs: base.connectTimeoutMs });
      }
      await this.#results.readPrevious(options.batch.outFile);
      await this.#results.rescore(dataset.items, scorer, (line) => {
        results.append(line);
        this.#results.set(asWrittenWithRoundedCosts(line));
      });
      const variants = [
        ...options.variants.map((variant) => variant.name),
        ...(windowTokens === undefined ? [] : [baselineVariant]),
      ];
      const jobs = this.#results.pendingJobs(dataset.items, variants);
      const skipped = dataset.items.length * variants.length - jobs.length;
      if (skipped > 0 && !base.quiet) {
        io.stderr.write(
          `rlm: ${skipped} of ${dataset.items.length * variants.length} item runs are already in ${options.batch.outFile}; skipping them\n`,
        );
      }
      const batch = queue
        ? queuedEvalBatch(options, jobs, queue, windowTokens, output)
        : localEvalBatch(
            options,
            jobs,
            resources!,
            variantModels!,
            baselineModel && { model: baselineModel, windowTokens: windowTokens! },
            output,
          );
      const outcome = await output.consume(jobs, (signal) =>
        scoreEvalOutcomes(batch.start(signal), scorer, batch.runOf, output!, this.#results),
      );
      if (outcome === 130 || outcome === 143) return outcome;
      const all = this.#results.all();
      io.stdout.write(
        formatEvalSummary(summarizeEval(all, { confidence: options.confidence, variants })),
      );
      if (options.reportFile !== undefined) {
        const written = await writeEvalReport(options.reportFile, all, {
          store,
          settings: {
            title: `rlm eval ${path.basename(options.batch.jobsFile)}`,
            scorer: describeScorer(options, scorer),
            ...(options.scorer.kind === 'judge'
              ? { rubric: await readJudgeRubric(options.judgeRubric) }
              : {}),
            confidence: options.confidence,
            variants,
          },
        });
        io.stderr.write(
          `rlm: report written to ${options.reportFile}${written.traces > 0 ? ` with ${written.traces} ${written.traces === 1 ? 'trace' : 'traces'} in ${written.tracesDirectory}` : ''}${store === undefined ? ' (no traces: --no-store)' : ''}\n`,
        );
      }
      return outcome;
    } finally {
      output?.closeResults();
      await closeScorer(scorer);
      await store?.close().catch(() => {});
    }
  }

  /** The direct baseline's model window in tokens; a usage error when it is unknown. */
  #baselineWindow(base: CliOptions): number {
    const windowTokens =
      this.#options.baseline?.windowTokens ?? findContextWindow(base.model.modelId);
    if (windowTokens === undefined) {
      throw new UsageError(
        `--baseline direct needs the input window of ${base.model.modelId}, which rlm does not know: add --baseline-window <tokens>, e.g. 128k`,
      );
    }
    return windowTokens;
  }
}

/** A did-not-fit line says so, not "answered in 0 ms". */
function describeResult(result: BatchResult): string | undefined {
  const didNotFit = (result as Partial<EvalResult>).didNotFit;
  return didNotFit === undefined
    ? undefined
    : `did not fit the model's window (about ${didNotFit.estimatedTokens.toLocaleString('en-US')} tokens for a window of ${didNotFit.windowTokens.toLocaleString('en-US')}): not sent, scored 0`;
}
