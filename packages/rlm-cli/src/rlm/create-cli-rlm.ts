import {
  type ArtifactStore,
  type ArtifactsSettings,
  createRLM,
  type LanguageModel,
  type ModelPrice,
  type RLM,
  formatErrorLine,
} from '@rlm/core';
import { replayModelId } from '@rlm/trace';
import { createCliModel } from './create-cli-model.js';
import { collectAtRest } from '../memory/keep-memory-low.js';
import { modelSettingFlags, subModelSettingFlags } from '../output/model-setting-flags.js';
import { nameModelFlags } from './name-model-flags.js';
import { createQuickJsSandbox } from '@rlm/sandbox-quickjs';
import { createSesSandbox } from '@rlm/sandbox-ses';
import { createToolStore } from '@rlm/toolstore';
import type { CliOptions } from '../run-options/run-options.js';
import { UsageError } from '../usage-error.js';

const freePrice: ModelPrice = {
  inputPerMillionUsd: 0,
  outputPerMillionUsd: 0,
  cacheReadPerMillionUsd: 0,
  cacheWritePerMillionUsd: 0,
};

/** What {@link createCliRlm} needs besides the command line's options. */
export interface CliRlmParts {
  /** Host tools from `--tools`. */
  readonly tools: Parameters<typeof createRLM>[0]['hostTools'];
  /** The artifact store the runs write, when there is one. */
  readonly artifacts: ArtifactStore | undefined;
  /**
   * `true` for one session across queries (piped and interactive queries); `false` to run
   * queries concurrently, each in its own sandbox (`rlm batch`).
   */
  readonly persistent: boolean;
  /**
   * `artifacts.runNamespace` of every run (an eval variant's): keeps them apart from other runs
   * of the same query and context in the store. Absent: none.
   */
  readonly runNamespace?: string;
}

/** The models of a command line: `--model`, and `--sub-model` when given. */
export interface CliModels {
  readonly model: LanguageModel;
  readonly subModel: LanguageModel | undefined;
}

/**
 * The models `--model` and `--sub-model` name, with their keys from `env`. Call it before any
 * file is read: a missing key throws a {@link UsageError} naming the variable to set.
 */
export async function createCliModels(
  cli: CliOptions,
  env: Readonly<Record<string, string | undefined>>,
): Promise<CliModels> {
  return {
    model: collectAtRest(
      nameModelFlags(await createCliModel(cli.model, env, cli.modelCalls), modelSettingFlags),
    ),
    subModel:
      cli.subModel &&
      collectAtRest(
        nameModelFlags(
          await createCliModel(cli.subModel, env, cli.modelCalls),
          subModelSettingFlags,
        ),
      ),
  };
}

/**
 * The RLM a command line describes: its models, sandbox, depth, budgets, quotas, tools, tool
 * store and artifact store. Settings `createRLM` rejects (a reserved tool name, say) throw a
 * {@link UsageError}.
 */
export function createCliRlm(cli: CliOptions, models: CliModels, parts: CliRlmParts): RLM {
  return createCliRlmFactory(cli, models, parts)(parts.artifacts);
}

/**
 * Makes RLMs that share one sandbox factory (its warm worker), one tool store and the models,
 * each with an artifact store of its own: a batch gives each job its own view of the store, to
 * see that job's store failures. Settings `createRLM` rejects throw a {@link UsageError}, from
 * this call already.
 */
export function createCliRlmFactory(
  cli: CliOptions,
  models: CliModels,
  parts: Omit<CliRlmParts, 'artifacts'>,
): (artifacts: ArtifactStore | undefined) => RLM {
  const settings = cliRlmSettings(cli, models, parts);
  const create = (artifacts: ArtifactStore | undefined) => {
    try {
      return createRLM({
        ...settings,
        ...(artifacts
          ? {
              artifacts: {
                ...cliArtifactsSettings(cli, artifacts),
                runNamespace: parts.runNamespace,
              },
            }
          : {}),
      });
    } catch (error) {
      throw new UsageError(formatErrorLine(error), { cause: error });
    }
  };
  // Settings are checked now, before any job runs.
  void create(undefined).dispose();
  return create;
}

/**
 * The `createRLM` settings a command line describes, without an artifact store: its models,
 * sandbox (one factory), depth, budgets, quotas, tools and tool store (`rlm serve` makes an RLM
 * per request from them).
 */
export function cliRlmSettings(
  cli: CliOptions,
  models: CliModels,
  parts: Omit<CliRlmParts, 'artifacts'>,
): Parameters<typeof createRLM>[0] {
  return {
    model: models.model,
    subModel: models.subModel,
    sandbox: cli.sandbox === 'quickjs' ? createQuickJsSandbox() : createSesSandbox(),
    session: { persistent: parts.persistent },
    limits: {
      maxDepth: cli.maxDepth,
      maxIterations: cli.maxIterations,
      ...(cli.maxConsecutiveErrors === undefined
        ? {}
        : { maxConsecutiveErrors: cli.maxConsecutiveErrors }),
      execTimeoutMs: cli.execTimeoutMs,
      maxCodeBlocksPerResponse: cli.maxCodeBlocks,
      maxConcurrency: cli.maxConcurrency,
      maxResponseChars: cli.maxResponseChars,
    },
    ...(cli.subModels === undefined ? {} : { subModels: cli.subModels }),
    ...(cli.redactionRatio === undefined ? {} : { redactionRatio: cli.redactionRatio }),
    // A replay answers from a recording: it costs nothing, and says so.
    prices: [cli.model, cli.subModel].some((spec) => spec?.provider === 'replay')
      ? { ...cli.prices, [replayModelId]: freePrice }
      : cli.prices,
    budget: {
      ...cli.budget,
      ...(cli.maxCostUsd === undefined ? {} : { maxCostUsd: cli.maxCostUsd }),
    },
    hostTools: parts.tools,
    ...(cli.toolStore
      ? {
          durableTools: {
            store: createToolStore({ switches: cli.toolSwitches, root: cli.toolStore.root }),
          },
        }
      : {}),
  };
}

/** The artifacts group a command line describes, around the store it opened. */
function cliArtifactsSettings(cli: CliOptions, store: ArtifactStore): ArtifactsSettings {
  return {
    store,
    quotas: cli.quotas,
    checkpoints: {
      ...(cli.checkpointMaxLagMs === undefined ? {} : { maxLagMs: cli.checkpointMaxLagMs }),
      ...(cli.checkpointMaxVariableBytes === undefined
        ? {}
        : { maxVariableBytes: cli.checkpointMaxVariableBytes }),
    },
  };
}
