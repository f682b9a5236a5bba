import { type ArtifactStore, createRLM, type RLM } from '@rlm/core';
import { createAnthropicModel } from '@rlm/core/anthropic';
import { createSesSandbox } from '@rlm/sandbox-ses';
import { createToolStore } from '@rlm/toolstore';
import type { CliOptions, ModelSpec } from './parse-arguments.js';
import { UsageError } from './usage-error.js';

/** What {@link createCliRlm} needs besides the command line's options. */
export interface CliRlmParts {
  /** The Anthropic API key (see {@link requireApiKey}). */
  readonly apiKey: string;
  /** `ANTHROPIC_BASE_URL`, when set. */
  readonly baseURL: string | undefined;
  /** Host tools from `--tools`. */
  readonly tools: Parameters<typeof createRLM>[0]['tools'];
  /** The artifact store the runs write, when there is one. */
  readonly artifacts: ArtifactStore | undefined;
  /**
   * `true` for one session across queries (piped and interactive queries); `false` to run
   * queries concurrently, each in its own sandbox (`rlm batch`).
   */
  readonly persistent: boolean;
}

/**
 * The key from `ANTHROPIC_API_KEY`; throws a {@link UsageError} saying how to set it when it
 * is missing or blank.
 */
export function requireApiKey(env: Readonly<Record<string, string | undefined>>): string {
  const apiKey = env.ANTHROPIC_API_KEY?.trim();
  if (!apiKey) {
    throw new UsageError(
      'ANTHROPIC_API_KEY is not set; export ANTHROPIC_API_KEY=<your key> (from https://console.anthropic.com/settings/keys)',
    );
  }
  return apiKey;
}

/**
 * The RLM a command line describes: its models, sandbox, depth, budgets, quotas, tools, tool
 * store and artifact store. Settings `createRLM` rejects (a reserved tool name, say) throw a
 * {@link UsageError}.
 */
export function createCliRlm(cli: CliOptions, parts: CliRlmParts): RLM {
  const createModel = (spec: ModelSpec) =>
    createAnthropicModel({
      model: spec.modelId,
      apiKey: parts.apiKey,
      baseURL: parts.baseURL,
      ...definedFields(cli.modelCalls),
    });
  const settings: Parameters<typeof createRLM>[0] = {
    llm: createModel(cli.model),
    subLlm: cli.subModel && createModel(cli.subModel),
    sandbox: createSesSandbox(),
    persistent: parts.persistent,
    maxDepth: cli.maxDepth,
    maxIterations: cli.maxIterations,
    prices: cli.prices,
    execTimeoutMs: cli.execTimeoutMs,
    budget: {
      ...cli.budget,
      ...(cli.maxCostUsd === undefined ? {} : { maxCostUsd: cli.maxCostUsd }),
    },
    maxCodeBlocksPerResponse: cli.maxCodeBlocks,
    maxResponseChars: cli.maxResponseChars,
    quotas: cli.quotas,
    tools: parts.tools,
    ...(cli.toolStore
      ? { toolStore: createToolStore({ switches: cli.toolSwitches, root: cli.toolStore.root }) }
      : {}),
    ...(parts.artifacts ? { artifacts: parts.artifacts } : {}),
  };
  try {
    return createRLM(settings);
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^@rlm\/[\w/-]+:\s*/, '') : '';
    throw new UsageError(reason || String(error), { cause: error });
  }
}

/** The fields of `record` that are set, for settings whose absence means "the default". */
function definedFields<Fields extends object>(record: Fields): Partial<Fields> {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== undefined),
  ) as Partial<Fields>;
}
