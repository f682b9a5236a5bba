import { parseArgs } from 'node:util';
import { defaultModelPrices, findModelPrice, type ModelPrices } from '@rlm/core';
import { defaultAnthropicModelId } from '@rlm/anthropic/model-id';
import { createContextPathFilter } from '../context/context-path-filter.js';
import { resolveToolStore } from '../store/resolve-tool-store.js';
import { UsageError } from '../usage-error.js';
import {
  optionalCount,
  optionalInteger,
  parseByteCount,
  parseDollars,
  parseDuration,
  parseRedactionRatio,
} from './parse-flag-values.js';
import { parseModelSpec, parseSubModels, withBaseURL } from './parse-model-spec.js';
import { parsePrice } from './parse-price.js';
import {
  type CliOptions,
  defaultConnectTimeoutMs,
  defaultMaxContextBytes,
  defaultMaxModelCalls,
  defaultMaxWallTimeMs,
  defaultStorePath,
  type SandboxChoice,
  type StoreErrorPolicy,
} from './run-options.js';

const optionDefinitions = {
  context: { type: 'string', short: 'c' },
  'context-dir': { type: 'string', short: 'd' },
  concat: { type: 'boolean' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  'no-gitignore': { type: 'boolean' },
  'no-default-excludes': { type: 'boolean' },
  strict: { type: 'boolean' },
  model: { type: 'string', short: 'm' },
  'sub-model': { type: 'string' },
  'sub-models': { type: 'string' },
  'base-url': { type: 'string' },
  'sub-base-url': { type: 'string' },
  'max-depth': { type: 'string' },
  'max-iterations': { type: 'string' },
  'max-errors': { type: 'string' },
  'redaction-ratio': { type: 'string' },
  'max-context-bytes': { type: 'string' },
  'max-cost': { type: 'string' },
  price: { type: 'string', multiple: true },
  'exec-timeout': { type: 'string' },
  'max-model-calls': { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-wall-time': { type: 'string' },
  'max-code-blocks': { type: 'string' },
  'max-concurrency': { type: 'string' },
  'max-response-chars': { type: 'string' },
  'request-timeout': { type: 'string' },
  'max-response-bytes': { type: 'string' },
  'max-retries': { type: 'string' },
  'max-retry-wait': { type: 'string' },
  'no-stream': { type: 'boolean' },
  'max-artifact-bytes': { type: 'string' },
  'checkpoint-max-variable-bytes': { type: 'string' },
  'checkpoint-max-lag': { type: 'string' },
  'max-artifacts': { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  store: { type: 'string' },
  'no-store': { type: 'boolean' },
  'store-errors': { type: 'string' },
  'connect-timeout': { type: 'string' },
  sandbox: { type: 'string' },
  resume: { type: 'boolean' },
  tools: { type: 'string' },
  out: { type: 'string', short: 'o' },
  trace: { type: 'string' },
  toolstore: { type: 'string' },
  'no-tool-reads': { type: 'boolean' },
  'no-tool-repair': { type: 'boolean' },
  'tool-generation-only': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** The flags that only mean something with `--context-dir` (besides `--concat`). */
const contextSelectionFlags = [
  'include',
  'exclude',
  'no-gitignore',
  'no-default-excludes',
] as const;

/** What the flags of a run ask for: help, the version, or a run. */
export type RunArguments =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'run'; readonly options: CliOptions };

/**
 * Parses the flags of a run (`rlm [options] [query...]`, and the run flags `rlm batch`,
 * `rlm worker`, `rlm serve` and `rlm eval` pass on) against the environment. Throws a
 * {@link UsageError} with a one-line message for unknown flags, missing or malformed values,
 * conflicting flags and model specs without a known provider. `--help` and `--version` win
 * over every other flag. Reads no file and checks no API key.
 */
export function parseRunOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): RunArguments {
  const { values, positionals } = parseRunFlags(argv);
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  if (values.context !== undefined && values['context-dir'] !== undefined) {
    throw new UsageError('--context and --context-dir cannot be combined; give one of them');
  }
  if (values['context-dir'] === undefined) {
    const directoryOnly = (['concat', ...contextSelectionFlags] as const).find(
      (flag) => values[flag] !== undefined,
    );
    if (directoryOnly) throw new UsageError(`--${directoryOnly} only applies to --context-dir`);
    if (values.strict && values.context === undefined) {
      throw new UsageError('--strict only applies to --context and --context-dir');
    }
  }
  for (const flag of ['include', 'exclude'] as const) {
    for (const glob of values[flag] ?? []) checkGlob(glob, `--${flag}`);
  }
  if (values['no-store'] && values.store !== undefined) {
    throw new UsageError('--store and --no-store cannot be combined; give one of them');
  }
  if (values['no-store'] && values.resume) {
    throw new UsageError('--resume needs the artifact store; drop --no-store');
  }
  const query = positionals.length === 0 ? undefined : positionals.join(' ');
  if (query !== undefined && query.trim() === '') {
    throw new UsageError('the query is empty; pass a question, or none for the interactive mode');
  }
  const modelSource = values.model !== undefined ? '--model' : 'RLM_MODEL';
  const modelText =
    values.model ?? nonEmpty(env.RLM_MODEL) ?? `anthropic:${defaultAnthropicModelId}`;
  const model = withBaseURL(
    parseModelSpec(modelText, modelSource),
    values['base-url'],
    '--base-url',
  );
  if (values['sub-base-url'] !== undefined && values['sub-model'] === undefined) {
    throw new UsageError(
      '--sub-base-url applies to --sub-model; add --sub-model <provider:id> or drop it (without --sub-model the root model, and its --base-url, serve sub-calls)',
    );
  }
  const subModel =
    values['sub-model'] === undefined
      ? undefined
      : withBaseURL(
          parseModelSpec(values['sub-model'], '--sub-model'),
          values['sub-base-url'],
          '--sub-base-url',
        );
  const prices: Record<string, ModelPrices[string]> = {};
  for (const text of values.price ?? []) {
    const { modelId, price } = parsePrice(text);
    prices[modelId] = price;
  }
  const maxCostUsd =
    values['max-cost'] === undefined ? undefined : parseDollars(values['max-cost']);
  const subModels =
    values['sub-models'] === undefined
      ? undefined
      : parseSubModels(values['sub-models'], subModel ?? model, model);
  if (maxCostUsd !== undefined) {
    const choices = (subModels ?? []).map((modelId) => ({ ...(subModel ?? model), modelId }));
    for (const spec of [model, ...(subModel ? [subModel] : []), ...choices]) {
      // A replay costs nothing.
      if (spec.provider === 'replay') continue;
      // The full id, so that a model id holding a colon (qwen2.5-coder:7b) keeps it.
      if (
        !findModelPrice({ ...defaultModelPrices, ...prices }, `${spec.provider}:${spec.modelId}`)
      ) {
        throw new UsageError(
          `--max-cost needs a price for ${spec.modelId}, which has none built in; add --price ${spec.modelId}=<input>,<output>[,<cache-read>,<cache-write>] (US dollars per million tokens)`,
        );
      }
    }
  }

  return {
    kind: 'run',
    options: {
      query,
      contextFile: values.context,
      contextDirectory: values['context-dir'],
      concat: values.concat ?? false,
      contextSelection: {
        include: values.include ?? [],
        exclude: values.exclude ?? [],
        gitignore: !values['no-gitignore'],
        defaultExcludes: !values['no-default-excludes'],
        strict: values.strict ?? false,
      },
      model,
      subModel,
      subModels,
      maxDepth: optionalInteger(values['max-depth'], '--max-depth'),
      maxIterations: optionalInteger(values['max-iterations'], '--max-iterations'),
      maxConsecutiveErrors: optionalInteger(values['max-errors'], '--max-errors'),
      redactionRatio:
        values['redaction-ratio'] === undefined
          ? undefined
          : parseRedactionRatio(values['redaction-ratio']),
      maxCostUsd,
      prices,
      maxContextBytes:
        values['max-context-bytes'] === undefined
          ? defaultMaxContextBytes
          : parseByteCount(values['max-context-bytes'], '--max-context-bytes'),
      budget: {
        maxModelCalls:
          optionalInteger(values['max-model-calls'], '--max-model-calls') ?? defaultMaxModelCalls,
        maxTokens: optionalInteger(values['max-tokens'], '--max-tokens'),
        maxWallTimeMs:
          values['max-wall-time'] === undefined
            ? defaultMaxWallTimeMs
            : parseDuration(values['max-wall-time'], '--max-wall-time'),
      },
      execTimeoutMs: optionalInteger(values['exec-timeout'], '--exec-timeout'),
      maxCodeBlocks: optionalInteger(values['max-code-blocks'], '--max-code-blocks'),
      maxConcurrency: optionalInteger(values['max-concurrency'], '--max-concurrency'),
      maxResponseChars: optionalInteger(values['max-response-chars'], '--max-response-chars'),
      modelCalls: {
        timeoutMs: optionalInteger(values['request-timeout'], '--request-timeout'),
        maxRetries: optionalCount(values['max-retries'], '--max-retries'),
        maxRetryAfterMs: optionalCount(values['max-retry-wait'], '--max-retry-wait'),
        stream: values['no-stream'] ? false : undefined,
        maxResponseBytes:
          values['max-response-bytes'] === undefined
            ? undefined
            : parseByteCount(values['max-response-bytes'], '--max-response-bytes'),
      },
      quotas: {
        artifactBytes:
          values['max-artifact-bytes'] === undefined
            ? undefined
            : parseByteCount(values['max-artifact-bytes'], '--max-artifact-bytes'),
        artifactCount: optionalInteger(values['max-artifacts'], '--max-artifacts'),
      },
      checkpointMaxVariableBytes:
        values['checkpoint-max-variable-bytes'] === undefined
          ? undefined
          : parseByteCount(
              values['checkpoint-max-variable-bytes'],
              '--checkpoint-max-variable-bytes',
            ),
      checkpointMaxLagMs: optionalCount(values['checkpoint-max-lag'], '--checkpoint-max-lag'),
      json: values.json ?? false,
      quiet: values.quiet ?? false,
      storePath: values['no-store'] ? undefined : (values.store ?? defaultStorePath),
      resume: values.resume ?? false,
      storeErrors: parseStoreErrorPolicy(values['store-errors']),
      connectTimeoutMs:
        values['connect-timeout'] === undefined
          ? defaultConnectTimeoutMs
          : parseDuration(values['connect-timeout'], '--connect-timeout'),
      sandbox: parseSandboxChoice(values.sandbox),
      toolsModule: values.tools,
      outFile: values.out,
      traceFile: values.trace,
      toolStore: resolveToolStore({
        flag: values.toolstore,
        env,
        storePath: values['no-store'] ? undefined : (values.store ?? defaultStorePath),
      }),
      toolSwitches: {
        readArtifacts: !values['no-tool-reads'],
        repair: !values['no-tool-repair'],
        generationOnly: values['tool-generation-only'] ?? false,
      },
    },
  };
}

function parseSandboxChoice(text: string | undefined): SandboxChoice {
  if (text === undefined || text === 'ses' || text === 'quickjs') return text ?? 'ses';
  throw new UsageError(`--sandbox must be ses or quickjs (got ${JSON.stringify(text)})`);
}

function parseStoreErrorPolicy(text: string | undefined): StoreErrorPolicy {
  if (text === undefined || text === 'fail' || text === 'warn') return text ?? 'fail';
  throw new UsageError(`--store-errors must be fail or warn (got ${JSON.stringify(text)})`);
}

/** `parseArgs` over the run flags, strict, with positionals; a one-line `UsageError` on failure. */
export function parseRunFlags(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      options: optionDefinitions,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(describeParseError(error), { cause: error });
  }
}

/** Node's `parseArgs` messages are long and multi-line; this keeps one short line. */
function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const option = /option '([^']+)'/i.exec(message)?.[1];
  const flag =
    option
      ?.split(', ')
      .at(-1)
      ?.replace(/ <value>$/, '') ?? 'an option';
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    return `unknown option ${flag}; run rlm --help for the list`;
  }
  if (message.includes('does not take an argument')) return `${flag} takes no value`;
  if (message.includes('ambiguous')) {
    return `${flag} needs a value; to pass one starting with "-", write ${flag}=<value>`;
  }
  if (message.includes('argument missing')) return `${flag} needs a value`;
  return message.split('\n')[0]!;
}

/** A glob must be non-empty and compile. */
function checkGlob(glob: string, flag: string): void {
  if (glob.trim() === '') {
    throw new UsageError(
      `${flag} needs a glob such as '*.md' or 'docs/**' (got ${JSON.stringify(glob)})`,
    );
  }
  try {
    createContextPathFilter({ include: [glob], exclude: [] });
  } catch (error) {
    throw new UsageError(
      `${flag} ${JSON.stringify(glob)} is not a valid glob; quote it so the shell leaves it alone`,
      { cause: error },
    );
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
