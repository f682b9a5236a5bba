import { defaultModelPrices, findModelPrice, type ModelPrice } from '@rlm/core';
import type { CliOptions, ModelSpec } from '../../run-options/run-options.js';
import { parseModelSpec } from '../../run-options/parse-model-spec.js';
import { QueuedRunSettingsError } from '../../queue/queued-run-settings-error.js';
import {
  modelText,
  type QueuedRunSettings,
  runModelSpecs,
} from '../../queue/queued-run-settings.js';

/** A worker's options for one job, and the flags where the worker's own limit won. */
export interface AppliedRunSettings {
  readonly cli: CliOptions;
  /** Flags (`--max-cost`, ...) the job asked more of than the worker allows. */
  readonly bounded: readonly string[];
}

/**
 * A worker's options for a job that carries run settings (read by `readQueuedRunSettings`): the
 * job's models, each reached at the worker's own base URL for its provider; each limit the
 * lower of the job's and the worker's (a limit the worker does not set is the job's); the
 * models code may choose per call (`--sub-models`) the job's, only those the worker lists too
 * when it lists some, and prices under its `--max-cost`; the job's prices only for models the worker has no price for, and none
 * when the worker caps the cost (`--max-cost`), so a job cannot price its way past the cap.
 * Everything else (context, store, tools, quotas) stays the worker's. Throws a `QueuedRunSettingsError` for a model the
 * CLI does not accept.
 */
export function applyQueuedRunSettings(
  worker: CliOptions,
  settings: QueuedRunSettings,
): AppliedRunSettings {
  const bounded: string[] = [];
  const lower = (job: number | undefined, own: number | undefined, flag: string) => {
    if (job === undefined || own === undefined) return job ?? own;
    if (job > own) bounded.push(flag);
    return Math.min(job, own);
  };
  const model = jobModel(settings.model, [worker.model, worker.subModel]);
  const subModel =
    settings.subModel === undefined
      ? undefined
      : jobModel(settings.subModel, [worker.subModel, worker.model]);
  const maxCostUsd = lower(settings.maxCostUsd, worker.maxCostUsd, '--max-cost');
  let subModels = settings.subModels ?? worker.subModels;
  if (settings.subModels && worker.subModels) {
    subModels = settings.subModels.filter((id) => worker.subModels!.includes(id));
    if (subModels.length < settings.subModels.length) bounded.push('--sub-models');
  }
  const prices: Record<string, ModelPrice> = { ...worker.prices };
  const known = { ...defaultModelPrices, ...worker.prices };
  if (worker.maxCostUsd === undefined) {
    for (const spec of runModelSpecs({ ...worker, model, subModel, subModels })) {
      const offered = settings.prices?.[spec.modelId];
      if (offered && !findModelPrice(known, modelText(spec))) prices[spec.modelId] = offered;
    }
  } else if (settings.subModels) {
    // Under the worker's cost cap, a job's choice the worker cannot price is left out.
    const provider = (subModel ?? model).provider;
    const priced = subModels!.filter((id) => findModelPrice(known, `${provider}:${id}`));
    if (priced.length < subModels!.length && !bounded.includes('--sub-models')) {
      bounded.push('--sub-models');
    }
    subModels = priced;
  }
  const calls = worker.modelCalls;
  const cli: CliOptions = {
    ...worker,
    model,
    subModel,
    maxDepth: lower(settings.maxDepth, worker.maxDepth, '--max-depth'),
    subModels,
    maxIterations: lower(settings.maxIterations, worker.maxIterations, '--max-iterations'),
    maxConsecutiveErrors: lower(
      settings.maxConsecutiveErrors,
      worker.maxConsecutiveErrors,
      '--max-errors',
    ),
    redactionRatio:
      settings.redactionRatio === 'off'
        ? Number.POSITIVE_INFINITY
        : (settings.redactionRatio ?? worker.redactionRatio),
    maxCostUsd,
    prices,
    budget: {
      maxModelCalls: lower(
        settings.maxModelCalls,
        worker.budget.maxModelCalls,
        '--max-model-calls',
      )!,
      maxTokens: lower(settings.maxTokens, worker.budget.maxTokens, '--max-tokens'),
      maxWallTimeMs: lower(settings.maxWallTimeMs, worker.budget.maxWallTimeMs, '--max-wall-time')!,
    },
    execTimeoutMs: lower(settings.execTimeoutMs, worker.execTimeoutMs, '--exec-timeout'),
    maxCodeBlocks: lower(settings.maxCodeBlocks, worker.maxCodeBlocks, '--max-code-blocks'),
    maxResponseChars: lower(
      settings.maxResponseChars,
      worker.maxResponseChars,
      '--max-response-chars',
    ),
    modelCalls: {
      timeoutMs: lower(settings.requestTimeoutMs, calls.timeoutMs, '--request-timeout'),
      maxRetries: lower(settings.maxRetries, calls.maxRetries, '--max-retries'),
      maxRetryAfterMs: lower(settings.maxRetryWaitMs, calls.maxRetryAfterMs, '--max-retry-wait'),
      stream: settings.stream === false || calls.stream === false ? false : undefined,
      // The worker's own bound on a model response: a job cannot raise it.
      maxResponseBytes: calls.maxResponseBytes,
    },
    sandbox: settings.sandbox ?? worker.sandbox,
  };
  return { cli, bounded };
}

/** The job's model, at the base URL the worker uses for that provider (its flag, else env). */
function jobModel(text: string, own: readonly (ModelSpec | undefined)[]): ModelSpec {
  let spec: ModelSpec;
  try {
    spec = parseModelSpec(text, 'the job');
  } catch (error) {
    throw new QueuedRunSettingsError(
      `the job's model ${JSON.stringify(text.slice(0, 60))} is not one rlm runs: ${(error as Error).message}`,
    );
  }
  const baseURL = own.find((worker) => worker?.provider === spec.provider)?.baseURL;
  return baseURL === undefined ? spec : { ...spec, baseURL };
}
