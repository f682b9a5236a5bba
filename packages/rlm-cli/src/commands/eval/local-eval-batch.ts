import {
  type ArtifactStore,
  defaultModelPrices,
  findModelPrice,
  type LanguageModel,
  type RLM,
} from '@rlm/core';
import { contextAsText, type DirectBaselineSettings, type EvalRun } from '@rlm/eval';
import { evalRunNamespace } from '../../jobs/eval-run-namespace.js';
import type { BatchJob } from '../../jobs/parse-batch-jobs.js';
import { runBaselineJob } from '../../jobs/run-baseline-job.js';
import { type BatchResult, runBatchQuery } from '../../jobs/run-batch-query.js';
import { queuedBatchId } from '../../queue/batch-queue-job.js';
import { queuedRunSettings } from '../../queue/queued-run-settings.js';
import { evalRunOf } from '../../jobs/eval-run-result.js';
import { type CliModels, createCliRlmFactory } from '../../rlm/create-cli-rlm.js';
import type { CliOptions } from '../../run-options/run-options.js';
import type { BatchResources } from '../batch/open-batch-resources.js';
import type { BatchOutput } from '../batch/batch-output.js';
import { type BatchJobIo, runBatchJobs } from '../batch/run-batch-jobs.js';
import type { EvalBatch, EvalJob, JobRun } from './eval-job.js';
import { baselineVariant, type EvalOptions } from './parse-eval-arguments.js';

/** How one variant answers a job. */
type VariantRunner = (
  job: EvalJob,
  io: BatchJobIo,
) => Promise<{
  readonly result: BatchResult;
  readonly run: EvalRun;
}>;

/** The jobs run in this process, each variant on its own RLM, the baseline on its model. */
export function localEvalBatch(
  options: EvalOptions,
  jobs: readonly EvalJob[],
  resources: BatchResources,
  variantModels: readonly CliModels[],
  baseline: { readonly model: LanguageModel; readonly windowTokens: number } | undefined,
  output: BatchOutput,
): EvalBatch {
  const base = options.batch.run;
  const factories = new Map<string, (artifacts: ArtifactStore | undefined) => RLM>();
  const runners = new Map<string, VariantRunner>();
  const evalId = queuedBatchId(options.batch.jobsFile);
  options.variants.forEach((variant, index) => {
    factories.set(
      variant.name,
      createCliRlmFactory(variant.run, variantModels[index]!, {
        tools: resources.tools,
        persistent: false,
        // The variants of an item run the same query over the same context: each in its own
        // namespace of runs, so none sees another's artifacts or checkpoints.
        runNamespace: evalRunNamespace(evalId, variant.name, queuedRunSettings(variant.run, 'rlm')),
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
