import { findModelPrice, type ModelPrice, type ModelPrices } from '@rlm/core';
import type { CliOptions, ModelSpec, SandboxChoice } from '../run-options/run-options.js';
import { QueuedRunSettingsError } from './queued-run-settings-error.js';

/**
 * The run settings a queued job carries to the worker that runs it (an `rlm eval` variant's, or
 * its direct baseline's): which models, how far a run may go, what it may cost. Plain JSON,
 * allow-listed: no base URL, path, tool or store, which stay the worker's. A worker bounds each
 * limit by its own (see `applyQueuedRunSettings`).
 */
export interface QueuedRunSettings {
  /** `rlm`: an RLM run; `direct`: the direct baseline, one call with the context in its prompt. */
  readonly kind: 'rlm' | 'direct';
  /** `provider:model-id`, reached at the worker's own base URL for that provider. */
  readonly model: string;
  /** `provider:model-id` of the sub-model; absent: the root model serves sub-calls. */
  readonly subModel?: string;
  /**
   * `--sub-models`: the ids (without a provider prefix) model code may choose per call, of the
   * sub-model's provider (else the model's).
   */
  readonly subModels?: readonly string[];
  readonly maxDepth?: number;
  readonly maxIterations?: number;
  /** `--max-errors`. */
  readonly maxConsecutiveErrors?: number;
  /** `--redaction-ratio`: a number above 0, or `off` (JSON has no `Infinity`). */
  readonly redactionRatio?: number | 'off';
  /** US dollars a run may spend. */
  readonly maxCostUsd?: number;
  /** `--price` of `model` and `subModel`, by model id; used only where the worker has none. */
  readonly prices?: ModelPrices;
  readonly maxModelCalls?: number;
  readonly maxTokens?: number;
  /** Milliseconds. */
  readonly maxWallTimeMs?: number;
  /** Milliseconds per code block. */
  readonly execTimeoutMs?: number;
  readonly maxCodeBlocks?: number;
  readonly maxResponseChars?: number;
  /** Milliseconds an answer may take to start (`--request-timeout`). */
  readonly requestTimeoutMs?: number;
  readonly maxRetries?: number;
  /** Milliseconds (`--max-retry-wait`). */
  readonly maxRetryWaitMs?: number;
  /** `false`: answers in one body (`--no-stream`). */
  readonly stream?: false;
  readonly sandbox?: SandboxChoice;
  /** `direct`: the model's input window in tokens. */
  readonly windowTokens?: number;
}

/** The numeric settings: the least value each takes, and whether it is whole. */
const numberSettings = {
  maxDepth: { min: 1, whole: true },
  maxIterations: { min: 1, whole: true },
  maxConsecutiveErrors: { min: 1, whole: true },
  maxCostUsd: { min: Number.MIN_VALUE, whole: false },
  maxModelCalls: { min: 1, whole: true },
  maxTokens: { min: 1, whole: true },
  maxWallTimeMs: { min: 1, whole: true },
  execTimeoutMs: { min: 1, whole: true },
  maxCodeBlocks: { min: 1, whole: true },
  maxResponseChars: { min: 1, whole: true },
  requestTimeoutMs: { min: 1, whole: true },
  maxRetries: { min: 0, whole: true },
  maxRetryWaitMs: { min: 0, whole: true },
  windowTokens: { min: 1, whole: true },
} as const;

type NumberSetting = keyof typeof numberSettings;

const otherSettings = [
  'kind',
  'model',
  'subModel',
  'subModels',
  'redactionRatio',
  'prices',
  'stream',
  'sandbox',
] as const;

const priceFields = [
  'inputPerMillionUsd',
  'outputPerMillionUsd',
  'cacheReadPerMillionUsd',
  'cacheWritePerMillionUsd',
] as const;

/** A model id as the job names it; longer ones are refused. */
const maxModelChars = 200;

/** Ids a job's `subModels` may list. */
const maxSubModels = 50;

/**
 * The settings a job carries for a run the command line `cli` describes: an RLM run (`rlm`), or
 * the direct baseline (`direct`, which needs `windowTokens` and takes only the model's
 * settings). Base URLs are not carried: the caller refuses them first.
 */
export function queuedRunSettings(
  cli: CliOptions,
  kind: QueuedRunSettings['kind'],
  windowTokens?: number,
): QueuedRunSettings {
  const specs = kind === 'rlm' ? runModelSpecs(cli) : [cli.model];
  const prices: Record<string, ModelPrice> = {};
  for (const spec of specs) {
    const price = findModelPrice(cli.prices, modelText(spec));
    if (price) prices[spec.modelId] = price;
  }
  const calls = {
    requestTimeoutMs: cli.modelCalls.timeoutMs,
    maxRetries: cli.modelCalls.maxRetries,
    maxRetryWaitMs: cli.modelCalls.maxRetryAfterMs,
    stream: cli.modelCalls.stream,
  };
  const settings =
    kind === 'direct'
      ? { kind, model: modelText(cli.model), windowTokens, ...calls }
      : {
          kind,
          model: modelText(cli.model),
          subModel: cli.subModel && modelText(cli.subModel),
          subModels: cli.subModels,
          maxDepth: cli.maxDepth,
          maxIterations: cli.maxIterations,
          maxConsecutiveErrors: cli.maxConsecutiveErrors,
          redactionRatio:
            cli.redactionRatio === Number.POSITIVE_INFINITY ? 'off' : cli.redactionRatio,
          maxCostUsd: cli.maxCostUsd,
          maxModelCalls: cli.budget.maxModelCalls,
          maxTokens: cli.budget.maxTokens,
          maxWallTimeMs: cli.budget.maxWallTimeMs,
          execTimeoutMs: cli.execTimeoutMs,
          maxCodeBlocks: cli.maxCodeBlocks,
          maxResponseChars: cli.maxResponseChars,
          ...calls,
          sandbox: cli.sandbox,
        };
  return {
    ...(Object.fromEntries(
      Object.entries(settings).filter(([, value]) => value !== undefined),
    ) as unknown as QueuedRunSettings),
    ...(Object.keys(prices).length > 0 ? { prices } : {}),
  };
}

/**
 * The models an RLM run of `cli` may call: the model, the sub-model, and each id of
 * `--sub-models` (of the sub-model's provider, else the model's).
 */
export function runModelSpecs(cli: CliOptions): ModelSpec[] {
  const plain = cli.subModel ?? cli.model;
  return [
    cli.model,
    ...(cli.subModel ? [cli.subModel] : []),
    ...(cli.subModels ?? []).map((modelId) => ({ provider: plain.provider, modelId })),
  ];
}

/** `provider:model-id`. */
export function modelText(spec: ModelSpec): string {
  return `${spec.provider}:${spec.modelId}`;
}

/**
 * Reads a job's run settings as they come off the queue (any JSON value): a fresh object of
 * the allow-listed settings, each checked. Throws a {@link QueuedRunSettingsError} naming the
 * first setting that is unknown, of the wrong type or out of range.
 */
export function readQueuedRunSettings(value: unknown): QueuedRunSettings {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw refused(`they are not an object (got ${describe(value)})`);
  }
  const record = value as Record<string, unknown>;
  const settings: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const field = record[key];
    if (Object.hasOwn(numberSettings, key)) {
      settings[key] = readNumber(key as NumberSetting, field);
    } else if (!(otherSettings as readonly string[]).includes(key)) {
      throw refused(
        `${JSON.stringify(key.slice(0, 40))} is not a setting a job may carry (only the model, sub-model, limits and prices)`,
      );
    }
  }
  if (record.kind !== 'rlm' && record.kind !== 'direct') {
    throw refused(`kind must be "rlm" or "direct" (got ${describe(record.kind)})`);
  }
  settings.kind = record.kind;
  settings.model = readModel('model', record.model);
  if (record.subModel !== undefined) settings.subModel = readModel('subModel', record.subModel);
  if (record.subModels !== undefined) settings.subModels = readSubModels(record.subModels);
  if (record.redactionRatio !== undefined) {
    const ratio = record.redactionRatio;
    if (ratio !== 'off' && !(typeof ratio === 'number' && Number.isFinite(ratio) && ratio > 0)) {
      throw refused(`redactionRatio must be a number above 0 or "off" (got ${describe(ratio)})`);
    }
    settings.redactionRatio = ratio;
  }
  if (record.stream !== undefined) {
    if (record.stream !== false)
      throw refused(`stream may only be false (got ${describe(record.stream)})`);
    settings.stream = false;
  }
  if (record.sandbox !== undefined) {
    if (record.sandbox !== 'ses' && record.sandbox !== 'quickjs') {
      throw refused(`sandbox must be "ses" or "quickjs" (got ${describe(record.sandbox)})`);
    }
    settings.sandbox = record.sandbox;
  }
  if (record.kind === 'direct' && settings.windowTokens === undefined) {
    throw refused('a direct baseline job needs windowTokens');
  }
  if (record.prices !== undefined) {
    const models = [
      ...[settings.model, settings.subModel].map((text) =>
        typeof text === 'string' ? text.slice(text.indexOf(':') + 1) : undefined,
      ),
      ...((settings.subModels as readonly string[] | undefined) ?? []),
    ];
    settings.prices = readPrices(record.prices, models);
  }
  return settings as unknown as QueuedRunSettings;
}

function readNumber(key: NumberSetting, value: unknown): number {
  const rule = numberSettings[key];
  const valid =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value >= rule.min &&
    (!rule.whole || Number.isSafeInteger(value));
  if (!valid) {
    throw refused(
      `${key} must be ${rule.whole ? `a whole number of at least ${rule.min}` : 'a positive number'} (got ${describe(value)})`,
    );
  }
  return value;
}

function readModel(key: string, value: unknown): string {
  if (
    typeof value !== 'string' ||
    value.length > maxModelChars ||
    !/^(anthropic|openai|ollama):[^\s\u0000-\u001f]+$/.test(value)
  ) {
    throw refused(
      `${key} must be "anthropic:<id>", "openai:<id>" or "ollama:<id>" (got ${describe(value)})`,
    );
  }
  return value;
}

function readSubModels(value: unknown): string[] {
  const valid =
    Array.isArray(value) &&
    value.length > 0 &&
    value.length <= maxSubModels &&
    value.every(
      (id) =>
        typeof id === 'string' && id.length <= maxModelChars && /^[^\s\u0000-\u001f,]+$/.test(id),
    );
  if (!valid) {
    throw refused(
      `subModels must be a list of 1 to ${maxSubModels} model ids without spaces (got ${describe(value)})`,
    );
  }
  return [...(value as string[])];
}

function readPrices(value: unknown, models: readonly (string | undefined)[]): ModelPrices {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw refused(`prices must be an object by model id (got ${describe(value)})`);
  }
  const prices: Record<string, ModelPrice> = {};
  for (const [id, price] of Object.entries(value)) {
    if (!models.includes(id)) {
      throw refused(
        `prices may only price the job's own models (got ${JSON.stringify(id.slice(0, 40))})`,
      );
    }
    const fields = typeof price === 'object' && price !== null ? Object.keys(price) : [];
    const valid =
      fields.length === priceFields.length &&
      priceFields.every((field) => {
        const number = (price as Record<string, unknown>)[field];
        return typeof number === 'number' && Number.isFinite(number) && number >= 0;
      });
    if (!valid) {
      throw refused(
        `the price of ${id} must be {${priceFields.join(', ')}}, US dollars per million tokens`,
      );
    }
    prices[id] = Object.fromEntries(
      priceFields.map((field) => [field, (price as Record<string, number>)[field]]),
    ) as unknown as ModelPrice;
  }
  return prices;
}

function refused(reason: string): QueuedRunSettingsError {
  return new QueuedRunSettingsError(
    `the job's run settings are refused: ${reason}; run the same rlm version for rlm eval --queue and rlm worker`,
  );
}

/** A hostile value, shown briefly: never formatted whole. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  if (typeof value === 'number' || typeof value === 'boolean' || value == null)
    return String(value);
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
