import { parseArgs } from 'node:util';
import { defaultModelPrices, findModelPrice, type ModelPrices } from '@rlm/core';
import { defaultAnthropicModelId } from '@rlm/anthropic';
import { createContextPathFilter } from './context/context-path-filter.js';
import {
  type ModelProvider,
  modelProviders,
  splitProvider,
} from './run-options/model-providers.js';
import { parsePrice } from './run-options/parse-price.js';
import { resolveToolStore, type ToolStoreChoice } from './store/resolve-tool-store.js';
import { UsageError } from './usage-error.js';

/** A model named on the command line as `provider:model-id`, or `replay:<trace>`. */
export interface ModelSpec {
  /**
   * `anthropic`, `openai` (or any OpenAI-compatible server) or `ollama`; or `replay`, the
   * responses recorded in a run's trace.
   */
  readonly provider: ModelProvider | 'replay';
  /**
   * The provider's model id, e.g. `claude-sonnet-4-5`, `gpt-4.1`, `qwen2.5-coder:7b`; for
   * `replay`, the trace: a JSON-lines file (`rlm trace --jsonl`) or a stored run's id.
   */
  readonly modelId: string;
  /** For `replay`: the trace's JSON lines, when they were read from the store (a run id). */
  readonly replayTrace?: string;
  /**
   * `--base-url` for `--model`, `--sub-base-url` for `--sub-model`: the provider's API
   * endpoint; `undefined` keeps the provider's default (its environment variable, else its
   * public API; `http://127.0.0.1:11434/v1` for Ollama).
   */
  readonly baseURL?: string;
}

/** Everything a run needs from the command line, validated. */
export interface CliOptions {
  /** The positional arguments joined by spaces; `undefined` for REPL and pipe modes. */
  readonly query: string | undefined;
  /** `--context`: one file. */
  readonly contextFile: string | undefined;
  /** `--context-dir`: a directory. */
  readonly contextDirectory: string | undefined;
  /** `--concat`: join the directory's files into one string. */
  readonly concat: boolean;
  /**
   * How `--context-dir` picks its files: `--include` and `--exclude` globs (repeatable),
   * `--no-gitignore`, `--no-default-excludes` (read hidden entries and `node_modules`),
   * `--strict` (a binary file, or a `.json` file that does not parse, is an error instead of
   * being skipped or read as text; also with `--context`).
   */
  readonly contextSelection: {
    readonly include: readonly string[];
    readonly exclude: readonly string[];
    readonly gitignore: boolean;
    readonly defaultExcludes: boolean;
    readonly strict: boolean;
  };
  /** `--model`, else `RLM_MODEL`, else the Anthropic adapter's default. */
  readonly model: ModelSpec;
  /** `--sub-model`; `undefined` means the root model serves sub-calls too. */
  readonly subModel: ModelSpec | undefined;
  /**
   * `--sub-models a,b`: the model ids model code may choose per call
   * (`llm_query(prompt, { model })`), without a provider prefix; `undefined`: any id of the
   * run's provider.
   */
  readonly subModels: readonly string[] | undefined;
  /** `--max-depth`; `undefined` keeps the core's default. */
  readonly maxDepth: number | undefined;
  /** `--max-iterations`; `undefined` keeps the core's default. */
  readonly maxIterations: number | undefined;
  /**
   * `--max-errors`: code blocks in a row that may throw before a call stops with its partial
   * answer; `undefined`: no limit.
   */
  readonly maxConsecutiveErrors: number | undefined;
  /**
   * `--redaction-ratio`: the share of the context an output's verbatim copies of it may make
   * before they are redacted (`Infinity` with `off`); `undefined` keeps the core's 0.25.
   */
  readonly redactionRatio: number | undefined;
  /**
   * `--max-cost`: the run's budget in US dollars (a positive number); `undefined` for none. The
   * root and sub model then need a price (built in, or `--price`).
   */
  readonly maxCostUsd: number | undefined;
  /** `--price` (repeatable): prices by model id, on top of the built-in ones. */
  readonly prices: ModelPrices;
  /** `--max-context-bytes`, in bytes. */
  readonly maxContextBytes: number;
  /**
   * `--max-model-calls`, `--max-tokens` and `--max-wall-time`: the query's budgets. Model calls
   * and wall time always have one ({@link defaultMaxModelCalls}, {@link defaultMaxWallTimeMs}),
   * so a run that loops stops on its own; tokens only when given.
   */
  readonly budget: {
    readonly maxModelCalls: number;
    readonly maxTokens: number | undefined;
    readonly maxWallTimeMs: number;
  };
  /** `--exec-timeout`, in milliseconds per code block; `undefined` keeps the core's default. */
  readonly execTimeoutMs: number | undefined;
  /** `--max-code-blocks`: code blocks run per model response; `undefined` keeps the core's 20. */
  readonly maxCodeBlocks: number | undefined;
  /**
   * `--max-concurrency`: the most model calls in flight at once (fewer after the API's 429s);
   * `undefined` keeps the core's default (`defaultMaxConcurrency`).
   */
  readonly maxConcurrency: number | undefined;
  /**
   * `--max-response-chars`: characters of one model response sent back to the model;
   * `undefined` keeps the core's 20,000.
   */
  readonly maxResponseChars: number | undefined;
  /**
   * How model calls meet API faults; `undefined` fields keep the adapter's defaults (60 s, 2
   * retries, 60 s).
   */
  readonly modelCalls: {
    /** `--request-timeout`: milliseconds an answer may take to start, and each silence in it. */
    readonly timeoutMs: number | undefined;
    /** `--max-retries`: retries of a transient fault (0 or more). */
    readonly maxRetries: number | undefined;
    /** `--max-retry-wait`: the longest `retry-after` wait honoured, in milliseconds (0 or more). */
    readonly maxRetryAfterMs: number | undefined;
    /** `false` with `--no-stream` (answers in one body, for gateways that cannot stream). */
    readonly stream: false | undefined;
    /** `--max-response-bytes` (byte suffixes allowed): the most bytes of one response read. */
    readonly maxResponseBytes: number | undefined;
  };
  /**
   * `--max-artifact-bytes` (byte suffixes allowed) and `--max-artifacts`: the run's artifact
   * quotas; `undefined` keeps the core's defaults (1 GiB, 10,000).
   */
  readonly quotas: {
    readonly artifactBytes: number | undefined;
    readonly artifactCount: number | undefined;
  };
  /**
   * `--checkpoint-max-variable-bytes` (byte suffixes allowed): most bytes one variable may take
   * serialised in a checkpoint; `undefined` keeps the core's default (256 MiB).
   */
  readonly checkpointMaxVariableBytes: number | undefined;
  /**
   * `--checkpoint-max-lag <ms>`: how old the newest checkpoint may grow while steps preempt the
   * snapshots after them (0: every step waits for its snapshot); `undefined` keeps the core's
   * default (30 s).
   */
  readonly checkpointMaxLagMs: number | undefined;
  /**
   * `--json`: one JSON line per query, `{ answer, iterations, depthReached, usage, durationMs }`,
   * or `{ error, usage, ... }` for a failure.
   */
  readonly json: boolean;
  /** `--quiet`: no progress on stderr. */
  readonly quiet: boolean;
  /** `--store`: the SQLite artifact store; `undefined` with `--no-store`. */
  readonly storePath: string | undefined;
  /** `--resume`: continue the latest checkpoint of the same query and context. */
  readonly resume: boolean;
  /** `--store-errors`: what a store failure during a run does to the exit code. */
  readonly storeErrors: StoreErrorPolicy;
  /**
   * `--connect-timeout`: how long reaching a Redis store or queue may take, in milliseconds,
   * before the command gives up with one line (exit 2) (default {@link defaultConnectTimeoutMs}).
   */
  readonly connectTimeoutMs: number;
  /** `--sandbox`: the adapter model code runs in: SES in a worker thread, or QuickJS. */
  readonly sandbox: SandboxChoice;
  /** `--tools`: a module exporting host tools. */
  readonly toolsModule: string | undefined;
  /**
   * `--out`: write the answers to this file instead of stdout; the first replaces it, later
   * ones are appended.
   */
  readonly outFile: string | undefined;
  /** `--trace`: write the run's HTML trace to this file when each query ends, failed or not. */
  readonly traceFile: string | undefined;
  /**
   * The durable tool store (see `resolveToolStore`): `--toolstore`, else `RLM_TOOLSTORE`, else
   * `tools` beside the artifact store; `undefined` with `--no-store` and neither setting.
   */
  readonly toolStore: ToolStoreChoice | undefined;
  /**
   * Kill switches of the durable tool store: `--no-tool-reads` (never run persisted code),
   * `--no-tool-repair` (regenerate instead of repairing), `--tool-generation-only` (act as if
   * there were no store).
   */
  readonly toolSwitches: {
    readonly readArtifacts: boolean;
    readonly repair: boolean;
    readonly generationOnly: boolean;
  };
}

/**
 * `fail` (the default): a run during which the store failed exits 3 after printing its answer;
 * `warn`: it only says so on stderr.
 */
export type StoreErrorPolicy = 'fail' | 'warn';

/** What the command line asks for. */
export type CliCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'run'; readonly options: CliOptions }
  /** `rlm runs ...`: the words after `runs`, parsed by the command. */
  | { readonly kind: 'runs'; readonly argv: readonly string[] }
  /** `rlm trace ...`: the words after `trace`, parsed by the command. */
  | { readonly kind: 'trace'; readonly argv: readonly string[] }
  /** `rlm batch ...`: the words after `batch`, parsed by the command. */
  | { readonly kind: 'batch'; readonly argv: readonly string[] }
  /** `rlm worker ...`: the words after `worker`, parsed by the command. */
  | { readonly kind: 'worker'; readonly argv: readonly string[] }
  /** `rlm serve ...`: the words after `serve`, parsed by the command. */
  | { readonly kind: 'serve'; readonly argv: readonly string[] }
  /** `rlm mcp ...`: the words after `mcp`, parsed by the command. */
  | { readonly kind: 'mcp'; readonly argv: readonly string[] }
  /** `rlm eval ...`: the words after `eval`, parsed by the command. */
  | { readonly kind: 'eval'; readonly argv: readonly string[] }
  | {
      readonly kind: 'tools';
      readonly argv: readonly string[];
      /** The store `rlm tools` works on: the one a run here would use. */
      readonly toolStore: ToolStoreChoice;
    }
  | {
      readonly kind: 'store';
      readonly argv: readonly string[];
      readonly storePath: string;
    };

/** Where the CLI keeps artifacts and checkpoints unless told otherwise. */
export const defaultStorePath = '.rlm/rlm.sqlite';

/** 256 MiB: V8 strings stop just under 512 Mi characters, and the sandbox holds a copy. */
export const defaultMaxContextBytes = 256 * 1024 * 1024;

/**
 * Model calls per query unless `--max-model-calls` says otherwise: room for wide
 * `llm_query_batched` fan-outs, but a run that loops stops on its own.
 */
export const defaultMaxModelCalls = 500;

/** Wall time per query unless `--max-wall-time` says otherwise: 30 minutes. */
export const defaultMaxWallTimeMs = 30 * 60_000;

/** How long reaching a Redis store or queue may take unless `--connect-timeout` says otherwise. */
export const defaultConnectTimeoutMs = 10_000;

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

const byteUnits: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  t: 1024 ** 4,
};

/**
 * Parses `argv` (without `node` and the script) against the environment. Throws a
 * {@link UsageError} with a one-line message for unknown flags, missing or malformed values,
 * conflicting flags and model specs without the `anthropic:` provider. `--help` and
 * `--version` win over every other flag. Reads no file and checks no API key.
 */
export function parseArguments(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): CliCommand {
  const toolsAt = argv.indexOf('tools');
  if (toolsAt >= 0 && isToolsCommand(argv.slice(0, toolsAt))) {
    const before = parseStrict(argv.slice(0, toolsAt)).values;
    return {
      kind: 'tools',
      argv: argv.slice(toolsAt + 1),
      toolStore: resolveToolStore({
        flag: before.toolstore,
        env,
        storePath: defaultStorePath,
      }) as ToolStoreChoice,
    };
  }
  const first = argv[0];
  if (first === 'runs') return { kind: 'runs', argv: argv.slice(1) };
  if (first === 'trace') return { kind: 'trace', argv: argv.slice(1) };
  if (first === 'batch') return { kind: 'batch', argv: argv.slice(1) };
  if (first === 'worker') return { kind: 'worker', argv: argv.slice(1) };
  if (first === 'serve') return { kind: 'serve', argv: argv.slice(1) };
  if (first === 'mcp') return { kind: 'mcp', argv: argv.slice(1) };
  if (first === 'eval') return { kind: 'eval', argv: argv.slice(1) };
  const storeAt = argv.indexOf('store');
  if (storeAt >= 0 && isStoreCommand(argv.slice(0, storeAt))) {
    const before = parseStrict(argv.slice(0, storeAt)).values;
    return {
      kind: 'store',
      argv: argv.slice(storeAt + 1),
      storePath: before.store ?? defaultStorePath,
    };
  }
  const { values, positionals } = parseStrict(argv);
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

/**
 * Whether `rlm ... tools ...` is the maintenance command: `tools` is the first positional and
 * only `--toolstore <dir>` comes before it.
 */
function isToolsCommand(before: readonly string[]): boolean {
  return (
    before.length === 0 ||
    (before.length === 2 && before[0] === '--toolstore') ||
    (before.length === 1 && before[0]!.startsWith('--toolstore='))
  );
}

/** Whether `rlm ... store ...` is the maintenance command: only `--store <file>` comes before it. */
function isStoreCommand(before: readonly string[]): boolean {
  return (
    before.length === 0 ||
    (before.length === 2 && before[0] === '--store') ||
    (before.length === 1 && before[0]!.startsWith('--store='))
  );
}

/** The sandbox adapters `--sandbox` chooses from. */
export type SandboxChoice = 'ses' | 'quickjs';

function parseSandboxChoice(text: string | undefined): SandboxChoice {
  if (text === undefined || text === 'ses' || text === 'quickjs') return text ?? 'ses';
  throw new UsageError(`--sandbox must be ses or quickjs (got ${JSON.stringify(text)})`);
}

function parseStoreErrorPolicy(text: string | undefined): StoreErrorPolicy {
  if (text === undefined || text === 'fail' || text === 'warn') return text ?? 'fail';
  throw new UsageError(`--store-errors must be fail or warn (got ${JSON.stringify(text)})`);
}

/**
 * Parses `<provider>:<model-id>` with provider `anthropic`, `openai` or `ollama`; the model id
 * may itself hold colons (`ollama:qwen2.5-coder:7b`). `replay:<trace>` takes the rest as it is
 * (a path may hold spaces). `source` names where the text came from (`--model`, `RLM_MODEL`)
 * in the error message.
 */
export function parseModelSpec(text: string, source: string): ModelSpec {
  const replay = /^replay:(.*)$/is.exec(text.trim());
  if (replay !== null) {
    const trace = replay[1]!.trim();
    if (trace === '') {
      throw new UsageError(
        `${source} replay: needs a trace: replay:<run.jsonl> (rlm trace <run-id> --jsonl -o run.jsonl) or replay:<run-id> (rlm runs)`,
      );
    }
    return { provider: 'replay', modelId: trace };
  }
  const match = /^([a-z][a-z0-9-]*):(\S+)$/i.exec(text.trim());
  const usage = modelProviders.map((provider) => `${provider}:<model-id>`).join(', ');
  if (match === null) {
    throw new UsageError(`${source} must look like ${usage} (got ${JSON.stringify(text)})`);
  }
  const provider = match[1]!.toLowerCase();
  if (!(modelProviders as readonly string[]).includes(provider)) {
    throw new UsageError(
      `${source} names provider ${JSON.stringify(provider)}; use ${usage} (openai: for any OpenAI-compatible server, with --base-url)`,
    );
  }
  return { provider: provider as ModelProvider, modelId: match[2]! };
}

/**
 * The ids of `--sub-models a,b`, without a provider prefix. An id may carry the provider of
 * `--sub-model` (else `--model`) as a prefix; one naming another provider, an empty entry or an
 * id with spaces is refused.
 */
function parseSubModels(text: string, plain: ModelSpec, root: ModelSpec): string[] {
  const ids = text.split(',').map((entry) => entry.trim());
  const usage = `--sub-models needs model ids separated by commas, e.g. --sub-models ${plain.modelId},<another id>`;
  if (ids.some((id) => id === '' || /\s/.test(id))) {
    throw new UsageError(`${usage} (got ${JSON.stringify(text)})`);
  }
  return [
    ...new Set(
      ids.map((id) => {
        const named = splitProvider(id);
        if (named === undefined) return id;
        if (named.provider !== plain.provider && named.provider !== root.provider) {
          throw new UsageError(
            `--sub-models: ${id} is not a model of this run's provider (${plain.provider}); give ids of ${plain.provider} models, e.g. ${plain.modelId}`,
          );
        }
        return named.modelId;
      }),
    ),
  ];
}

/** `--redaction-ratio`: a number above 0 (`0.25`, `.5`, `2`), or `off`. */
function parseRedactionRatio(text: string): number {
  if (text.trim().toLowerCase() === 'off') return Number.POSITIVE_INFINITY;
  const value = /^(\d+(\.\d*)?|\.\d+)$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0) {
    throw new UsageError(
      `--redaction-ratio needs a number above 0 such as 0.25, or off (got ${JSON.stringify(text)})`,
    );
  }
  return value;
}

/** Adds a `--base-url` / `--sub-base-url` value to a spec after checking it is an http(s) URL. */
function withBaseURL(spec: ModelSpec, text: string | undefined, flag: string): ModelSpec {
  if (text === undefined) return spec;
  if (spec.provider === 'replay') {
    throw new UsageError(`${flag} does not apply to a replay:, which calls no API; drop ${flag}`);
  }
  let url: URL | undefined;
  try {
    url = new URL(text.trim());
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(
      `${flag} must be an http(s) URL such as http://127.0.0.1:8000/v1 (got ${JSON.stringify(text)})`,
    );
  }
  return { ...spec, baseURL: text.trim() };
}

function parseStrict(argv: readonly string[]) {
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

/** A positive whole number given to `flag`; `undefined` when the flag was not given. */
export function optionalInteger(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  return checkPositive(
    /^\d+$/.test(text) ? Number(text) : Number.NaN,
    text,
    flag,
    'a positive whole number',
  );
}

const durationUnits: Record<string, number> = {
  '': 1,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Milliseconds, or a number with a unit: `90000`, `90s`, `30m`, `2h`, `7d`. */
export function parseDuration(text: string, flag: string): number {
  const match = /^(\d+)\s*(ms|s|m|h|d)?$/i.exec(text.trim());
  const value =
    match === null ? Number.NaN : Number(match[1]) * durationUnits[(match[2] ?? '').toLowerCase()]!;
  return checkPositive(value, text, flag, 'a duration such as 600000 (ms), 90s, 30m, 2h or 7d');
}

/** A whole number of 0 or more, e.g. `--max-retries 0`. */
function optionalCount(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new UsageError(`${flag} needs a whole number of 0 or more (got ${JSON.stringify(text)})`);
  }
  return value;
}

/** Bytes, with optional binary suffixes: `1048576`, `512K`, `256MiB`, `2G`, `1gb`. */
export function parseByteCount(text: string, flag: string): number {
  const match = /^(\d+)\s*(?:([kmgt])(?:i?b)?|(b))?$/i.exec(text.trim());
  const unit = byteUnits[(match?.[2] ?? match?.[3] ?? '').toLowerCase()]!;
  const value = match === null ? Number.NaN : Number(match[1]) * unit;
  return checkPositive(value, text, flag, 'a size in bytes such as 536870912, 512M or 1GiB');
}

/** A positive amount of US dollars: `5`, `0.50`, `.25`. */
function parseDollars(text: string): number {
  const value = /^(\d+(\.\d*)?|\.\d+)$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0) {
    throw new UsageError(
      `--max-cost needs a positive number of US dollars such as 0.50 (got ${JSON.stringify(text)})`,
    );
  }
  return value;
}

function checkPositive(value: number, text: string, flag: string, expected: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`${flag} needs ${expected} (got ${JSON.stringify(text)})`);
  }
  return value;
}
