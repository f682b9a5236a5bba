import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type ArtifactStore,
  defaultModelPrices,
  findModelPrice,
  type LanguageModel,
  type RLM,
  formatErrorLine,
} from '@rlm/core';
import {
  contextAsText,
  createBuiltInScorer,
  createJudgeScorer,
  type DirectBaselineSettings,
  type EvalItem,
  type EvalResult,
  type EvalRun,
  EvalSettingsError,
  evalResultKey,
  findContextWindow,
  formatEvalSummary,
  loadScorerModule,
  readEvalResults,
  type Scorer,
  ScorerModuleError,
  scoreRun,
  summarizeEval,
  writeSniahDataset,
} from '@rlm/eval';
import { BatchResultsFile } from '../batch/batch-results-file.js';
import { asWrittenWithRoundedCosts } from '../../output/round-costs.js';
import { checkQueueReachable } from '../../queue/check-queue-reachable.js';
import { createCliModel } from '../../rlm/create-cli-model.js';
import { type CliModels, createCliModels, createCliRlmFactory } from '../../rlm/create-cli-rlm.js';
import { formatBytes } from '../../output/format-bytes.js';
import { type BatchResources, openBatchResources } from '../batch/open-batch-resources.js';
import { openStore } from '../../store/open-store.js';
import type { CliOptions } from '../../run-options/run-options.js';
import type { BatchJob } from '../../jobs/parse-batch-jobs.js';
import { type QueueConnection, parseQueueUrl } from '../../queue/parse-queue-url.js';
import { queueBatchJobs } from '../batch/queue-batch-jobs.js';
import { queuedRunSettings } from '../../queue/queued-run-settings.js';
import { type BatchCommandIo, BatchOutput } from '../batch/run-batch-command.js';
import { type BatchJobIo, type BatchOutcome, runBatchJobs } from '../batch/run-batch-jobs.js';
import { type BatchResult, runBatchQuery } from '../../jobs/run-batch-query.js';
import { UsageError } from '../../usage-error.js';
import { evalHelp } from './eval-help.js';
import { evalRunOf, readQueuedEvalResult } from '../../jobs/eval-run-result.js';
import { type EvalOptions, baselineVariant, parseEvalArguments } from './parse-eval-arguments.js';
import { readEvalDataset } from './read-eval-dataset.js';
import { runBaselineJob } from '../../jobs/run-baseline-job.js';
import { writeEvalReport } from './write-eval-report.js';

/** One item run by one variant: a job of the batch runner. */
interface EvalJob extends BatchJob {
  readonly item: EvalItem;
  readonly variant: string;
}

/** How a job's run went, for its score. */
interface JobRun {
  readonly run: EvalRun;
  readonly contextChars: number | undefined;
  /** Flags whose limit a worker lowered to its own. */
  readonly bounded?: readonly string[];
}

/** The eval's jobs run here or on the queue: how to start them, and each one's run. */
interface EvalBatch {
  readonly start: (signal: AbortSignal) => AsyncGenerator<BatchOutcome, void, undefined>;
  /** Called once per result, as it comes. */
  readonly runOf: (job: EvalJob, result: BatchResult) => JobRun;
}

/** How one variant answers a job. */
type VariantRunner = (
  job: EvalJob,
  io: BatchJobIo,
) => Promise<{
  readonly result: BatchResult;
  readonly run: EvalRun;
}>;

/**
 * `rlm eval`: runs a dataset with each variant (and the direct baseline) on rlm batch's runner,
 * scores each answer as it comes, appends one result line per item and variant to `--out`,
 * prints the summary on stdout and writes the `--report`. Or `--generate sniah` writes a
 * dataset. Resolves to the exit code; rejects with a `UsageError` before any model is called.
 */
export async function runEvalCommand(argv: readonly string[], io: BatchCommandIo): Promise<number> {
  const command = parseEvalArguments(argv, io.env);
  if (command.kind === 'help') {
    io.stdout.write(evalHelp);
    return 0;
  }
  if (command.kind === 'generate') {
    const written = await writeSniahDataset(command.directory, command).catch((error: unknown) => {
      if (EvalSettingsError.isInstance(error)) {
        throw new UsageError(formatErrorLine(error), { cause: error });
      }
      throw error;
    });
    io.stderr.write(
      `rlm: wrote ${written.items} items (${formatBytes(written.contextBytes)} of contexts) to ${written.datasetFile}; run them with rlm eval ${written.datasetFile} --scorer contains\n`,
    );
    return 0;
  }
  return await new EvalCommand(command.options, io).run();
}

/** One `rlm eval` invocation: its models, scorer, variants, results and report. */
class EvalCommand {
  readonly #options: EvalOptions;
  readonly #io: BatchCommandIo;
  /** Lines from an earlier run of the same command (`--out`), the last per pair. */
  readonly #results = new Map<string, EvalResult>();

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
    const scorer = await this.#createScorer(judgeModel);
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
      await this.#readPrevious();
      await this.#rescore(dataset.items, scorer, (line) => {
        results.append(line);
        this.#results.set(evalResultKey(line.id, line.variant), asWrittenWithRoundedCosts(line));
      });
      const variants = [
        ...options.variants.map((variant) => variant.name),
        ...(windowTokens === undefined ? [] : [baselineVariant]),
      ];
      const jobs = this.#pendingJobs(dataset.items, variants);
      const skipped = dataset.items.length * variants.length - jobs.length;
      if (skipped > 0 && !base.quiet) {
        io.stderr.write(
          `rlm: ${skipped} of ${dataset.items.length * variants.length} item runs are already in ${options.batch.outFile}; skipping them\n`,
        );
      }
      const batch = queue
        ? this.#queued(jobs, queue, windowTokens, output)
        : this.#local(
            jobs,
            resources!,
            variantModels!,
            baselineModel && { model: baselineModel, windowTokens: windowTokens! },
            output,
          );
      const outcome = await output.consume(jobs, (signal) =>
        this.#scored(batch.start(signal), scorer, batch.runOf, output!),
      );
      if (outcome === 130 || outcome === 143) return outcome;
      const all = [...this.#results.values()];
      io.stdout.write(
        formatEvalSummary(summarizeEval(all, { confidence: options.confidence, variants })),
      );
      if (options.reportFile !== undefined) {
        const written = await writeEvalReport(options.reportFile, all, {
          store,
          settings: {
            title: `rlm eval ${path.basename(options.batch.jobsFile)}`,
            scorer: describeScorer(options, scorer),
            ...(options.scorer.kind === 'judge' ? { rubric: await this.#rubric() } : {}),
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

  /**
   * Scores each result as it comes, the line written being the scored one; passes on the
   * other outcomes. `runOf` tells how the job's run went.
   */
  async *#scored(
    outcomes: AsyncGenerator<BatchOutcome, void, undefined>,
    scorer: Scorer,
    runOf: (job: EvalJob, result: BatchResult) => JobRun,
    output: BatchOutput,
  ): AsyncGenerator<BatchOutcome, void, undefined> {
    const saidBounded = new Set<string>();
    for await (const outcome of outcomes) {
      if (outcome.kind !== 'result') {
        yield outcome;
        continue;
      }
      const job = outcome.job as EvalJob;
      const { run, contextChars, bounded = [] } = runOf(job, outcome.result);
      const said = `${job.variant} ${bounded.join(' ')}`;
      if (bounded.length > 0 && !saidBounded.has(said)) {
        saidBounded.add(said);
        output.line(
          `rlm: variant ${job.variant}: a worker ran it within its own lower limits (${bounded.join(', ')}), not the variant's; raise them on the workers to measure the variant as given`,
        );
      }
      // As the results file keeps it (costs rounded), so the report's figures are the file's.
      const line = asWrittenWithRoundedCosts(
        await scoreRun(job.item, run, { variant: job.variant, scorer, contextChars }),
      );
      if (line.scoreFailure) {
        output.line(`rlm: id ${job.id}: not scored: ${line.scoreFailure.message}`);
      }
      this.#results.set(evalResultKey(line.id, line.variant), line);
      // The line written is the scored one; what did not fit counts as done, not failed.
      yield {
        kind: 'result',
        job,
        result: (line.didNotFit ? { ...line, answer: null } : line) as unknown as BatchResult,
      };
    }
  }

  /** The jobs run in this process, each variant on its own RLM, the baseline on its model. */
  #local(
    jobs: readonly EvalJob[],
    resources: BatchResources,
    variantModels: readonly CliModels[],
    baseline: { readonly model: LanguageModel; readonly windowTokens: number } | undefined,
    output: BatchOutput,
  ): EvalBatch {
    const options = this.#options;
    const base = options.batch.run;
    const factories = new Map<string, (artifacts: ArtifactStore | undefined) => RLM>();
    const runners = new Map<string, VariantRunner>();
    options.variants.forEach((variant, index) => {
      factories.set(
        variant.name,
        createCliRlmFactory(variant.run, variantModels[index]!, {
          tools: resources.tools,
          persistent: false,
        }),
      );
      runners.set(variant.name, rlmRunner(variant.run));
    });
    if (baseline) {
      // The baseline's jobs make no RLM run; any variant's factory gives them one to ignore.
      factories.set(baselineVariant, factories.values().next().value!);
      runners.set(
        baselineVariant,
        baselineRunner({
          ...baseline,
          price: findModelPrice({ ...defaultModelPrices, ...base.prices }, base.model.modelId),
        }),
      );
    }
    const runs = new Map<EvalJob, JobRun>();
    const execute = async (batchJob: BatchJob, jobIo: BatchJobIo): Promise<BatchResult> => {
      const job = batchJob as EvalJob;
      let contextChars: number | undefined;
      const measured = {
        ...jobIo,
        context: async () => {
          const value = await jobIo.context();
          contextChars = value === undefined ? undefined : contextAsText(value).length;
          return value;
        },
      };
      const { result, run } = await runners.get(job.variant)!(job, measured);
      runs.set(job, { run, contextChars });
      return result;
    };
    const { concat, contextSelection } = base;
    return {
      start: (signal) =>
        runBatchJobs(jobs, {
          createRlm: (artifacts, job) => factories.get((job as EvalJob).variant)!(artifacts),
          execute,
          directoryContext: { concat, ...contextSelection },
          store: resources.store,
          concurrency: options.batch.concurrency,
          maxBatchCostUsd: options.batch.maxBatchCostUsd,
          maxArtifactBytes: options.batch.maxBatchArtifactBytes,
          context: resources.context?.value,
          contextRoot: resources.contextRoot,
          maxContextBytes: base.maxContextBytes,
          model: base.model,
          subModel: base.subModel,
          signal,
          onStart: (job, tally) => output.started(job, tally),
          onEnd: (job) => output.ended(job),
          onEvent: (job, event) => output.event(job, event),
          onStoreFailure: (job, failure) => output.storeFailed(job, failure),
          report: (job, line) => output.jobNotice(job, line.replace(/^rlm: /, ''), line),
        }),
      runOf: (job) => {
        const run = runs.get(job)!;
        runs.delete(job);
        return run;
      },
    };
  }

  /**
   * The jobs put on the queue for `rlm worker`s, each with its variant's run settings (the
   * baseline's too); the workers return the facts each run is scored by.
   */
  #queued(
    jobs: readonly EvalJob[],
    queue: { readonly url: string; readonly connection: QueueConnection },
    windowTokens: number | undefined,
    output: BatchOutput,
  ): EvalBatch {
    const options = this.#options;
    const settings = new Map(
      options.variants.map((variant) => [variant.name, queuedRunSettings(variant.run, 'rlm')]),
    );
    if (windowTokens !== undefined) {
      settings.set(baselineVariant, queuedRunSettings(options.batch.run, 'direct', windowTokens));
    }
    return {
      start: (signal) =>
        queueBatchJobs(jobs, {
          queue: queue.url,
          connection: queue.connection,
          jobsFile: options.batch.jobsFile,
          cli: options.batch.run,
          maxBatchCostUsd: options.batch.maxBatchCostUsd,
          maxArtifactBytes: options.batch.maxBatchArtifactBytes,
          stallTimeoutMs: options.batch.stallTimeoutMs,
          runSettings: (job) => settings.get((job as EvalJob).variant),
          signal,
          report: (line) => output.line(line),
        }),
      runOf: (_job, result) => readQueuedEvalResult(result),
    };
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

  /** Reads the lines an earlier run of the same command left in `--out`. */
  async #readPrevious(): Promise<void> {
    const file = this.#options.batch.outFile;
    if (file === undefined) return;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new UsageError(`cannot read the results --out ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const read = readEvalResults(text);
    for (const line of read.results) this.#results.set(evalResultKey(line.id, line.variant), line);
  }

  async #createScorer(judgeModel: LanguageModel | undefined): Promise<Scorer> {
    const options = this.#options;
    const choice = options.scorer;
    if (choice.kind === 'built-in') {
      return createBuiltInScorer(choice.name, {
        ...(options.tolerance === undefined ? {} : { tolerance: options.tolerance }),
        jsonMatch: options.jsonMatch,
      });
    }
    if (choice.kind === 'judge') {
      const base = options.batch.run;
      const rubric = await this.#rubric();
      const price = findModelPrice(
        { ...defaultModelPrices, ...base.prices },
        options.judgeModel.modelId,
      );
      return createJudgeScorer({
        model: judgeModel!,
        ...(rubric === undefined ? {} : { rubric }),
        ...(price === undefined ? {} : { price }),
      });
    }
    try {
      return await loadScorerModule(choice.file, { timeoutMs: options.scorerTimeoutMs });
    } catch (error) {
      if (ScorerModuleError.isInstance(error)) {
        throw new UsageError(
          `${formatErrorLine(error)}; see rlm eval --help for the scorer's shape`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /** `--judge-rubric`: its text, or the file it names with `@`. */
  async #rubric(): Promise<string | undefined> {
    const text = this.#options.judgeRubric;
    if (text === undefined || !text.startsWith('@')) return text;
    try {
      return await readFile(text.slice(1), 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read the rubric ${text.slice(1)}: ${(error as Error).message}; give --judge-rubric "<text>" or @<file>`,
        { cause: error },
      );
    }
  }

  /**
   * Scores again the answers an earlier run kept but could not score (the scorer failed on
   * them), without running the items again.
   */
  async #rescore(
    items: readonly EvalItem[],
    scorer: Scorer,
    append: (line: EvalResult) => void,
  ): Promise<void> {
    const byId = new Map(items.map((item) => [item.key, item]));
    for (const line of [...this.#results.values()]) {
      const item = byId.get(JSON.stringify(line.id));
      if (line.score !== null || line.answer === undefined || item === undefined) continue;
      const run: EvalRun = {
        kind: 'answered',
        answer: line.answer,
        usage: line.usage,
        durationMs: line.durationMs,
        steps: line.steps,
        subCalls: line.subCalls,
        ...(line.runId === undefined ? {} : { runId: line.runId }),
      };
      append(
        await scoreRun(item, run, {
          variant: line.variant,
          scorer,
          contextChars: line.contextChars,
        }),
      );
    }
  }

  /** Item by item, each variant: the pairs without a finished line in `--out`. */
  #pendingJobs(items: readonly EvalItem[], variants: readonly string[]): EvalJob[] {
    const jobs: EvalJob[] = [];
    for (const item of items) {
      for (const variant of variants) {
        const done = this.#results.get(evalResultKey(item.id, variant));
        if (done !== undefined && done.error === undefined) continue;
        jobs.push({
          // Shown in the progress lines and kept in the trace: the item's id and the variant.
          id: `${String(item.id)} (${variant})`,
          key: `${item.key} (${variant})`,
          query: item.query,
          contextFile: item.context?.kind === 'file' ? item.context.path : undefined,
          ...(item.context?.kind === 'directory' ? { contextDirectory: item.context.path } : {}),
          line: item.line,
          item,
          variant,
        });
      }
    }
    return jobs;
  }
}

/** A variant that runs each item on its RLM, keeping the trace in `store`. */
function rlmRunner(cli: CliOptions): VariantRunner {
  return async (job, io) => {
    const { result, runId } = await runBatchQuery(io.rlm, job, {
      ...io,
      resume: false,
      model: cli.model,
      subModel: cli.subModel,
    });
    const run = evalRunOf(result, {
      steps: io.tally.snapshot().iterations,
      subCalls: io.tally.subCalls,
      ...(runId === undefined ? {} : { runId }),
    });
    return { result, run };
  };
}

/** The direct baseline: the same model, the whole context in one prompt when it fits. */
function baselineRunner(settings: Omit<DirectBaselineSettings, 'signal'>): VariantRunner {
  return (job, io) => runBaselineJob(job, io.context, { ...settings, signal: io.signal });
}

/** A did-not-fit line says so, not "answered in 0 ms". */
function describeResult(result: BatchResult): string | undefined {
  const didNotFit = (result as Partial<EvalResult>).didNotFit;
  return didNotFit === undefined
    ? undefined
    : `did not fit the model's window (about ${didNotFit.estimatedTokens.toLocaleString('en-US')} tokens for a window of ${didNotFit.windowTokens.toLocaleString('en-US')}): not sent, scored 0`;
}

function describeScorer(options: EvalOptions, scorer: Scorer): string {
  if (options.scorer.kind === 'judge')
    return `judge (${options.judgeModel.provider}:${options.judgeModel.modelId})`;
  return scorer.name;
}

async function closeScorer(scorer: Scorer | undefined): Promise<void> {
  const closable = scorer as { close?: () => Promise<void> } | undefined;
  await closable?.close?.().catch(() => {});
}
