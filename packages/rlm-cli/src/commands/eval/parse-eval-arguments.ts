import {
  builtInScorerNames,
  isBuiltInScorerName,
  type NumberTolerance,
  parseNumberTolerance,
  parseTokenLengths,
} from '@rlm/eval';
import type { CliOptions, ModelSpec } from '../../run-options/run-options.js';
import { parseModelSpec } from '../../run-options/parse-model-spec.js';
import { type BatchOptions, parseBatchArguments } from '../batch/parse-batch-arguments.js';
import { UsageError } from '../../usage-error.js';
import { splitFlagWords } from './split-flag-words.js';
import { variantNamePattern } from '../../jobs/eval-run-namespace.js';

/** `rlm eval`'s command line, validated. */
export type EvalCommand =
  | { readonly kind: 'help' }
  | {
      readonly kind: 'generate';
      readonly task: 'sniah';
      /** Context lengths in tokens. */
      readonly lengths: readonly number[];
      readonly n: number;
      readonly seed: number;
      /** `--out`: the directory written (default `sniah`). */
      readonly directory: string;
    }
  | { readonly kind: 'eval'; readonly options: EvalOptions };

/** What scores the answers. */
export type ScorerChoice =
  | { readonly kind: 'built-in'; readonly name: string }
  | { readonly kind: 'judge' }
  | { readonly kind: 'module'; readonly file: string };

/** One way of running the dataset: a name and the run flags it adds to the command's. */
export interface EvalVariant {
  readonly name: string;
  /** The words of `--variant name=<words>`; empty for the default variant. */
  readonly words: readonly string[];
  /** The command's run flags with the variant's on top. */
  readonly run: CliOptions;
}

/** What `rlm eval` runs, scores and writes. */
export interface EvalOptions {
  /** The batch part: the dataset (`jobsFile`), concurrency, `--out`, the cost cap, the run flags. */
  readonly batch: BatchOptions;
  readonly scorer: ScorerChoice;
  /** `--tolerance` for the `number` scorer. */
  readonly tolerance: NumberTolerance | undefined;
  /** `--json-match` for the `json` scorer. */
  readonly jsonMatch: 'equal' | 'subset';
  /** `--scorer-timeout`: milliseconds a custom scorer may take per item. */
  readonly scorerTimeoutMs: number;
  /** `--judge-model`, else the command's `--model`. */
  readonly judgeModel: ModelSpec;
  /** `--judge-rubric` (text, or `@file` read later); `undefined` for the default rubric. */
  readonly judgeRubric: string | undefined;
  /** The variants, in order: `--variant`s, else one named `rlm`. */
  readonly variants: readonly EvalVariant[];
  /** `--baseline direct`; `windowTokens` from `--baseline-window`, else looked up. */
  readonly baseline: { readonly windowTokens: number | undefined } | undefined;
  /** `--report`: the HTML report written at the end. */
  readonly reportFile: string | undefined;
  /** `--confidence` of the intervals (default 0.95). */
  readonly confidence: number;
}

/** The name of the direct baseline's variant. */
export const baselineVariant = 'direct';

/** The variant's name when no `--variant` is given. */
export const defaultVariant = 'rlm';

/** Scorer-module timeout unless `--scorer-timeout` says otherwise. */
export const defaultScorerTimeoutMs = 10_000;

const valueFlags = new Set([
  'scorer',
  'tolerance',
  'json-match',
  'scorer-timeout',
  'judge-model',
  'judge-rubric',
  'variant',
  'baseline',
  'baseline-window',
  'report',
  'confidence',
  'generate',
  'lengths',
  'n',
  'seed',
]);

const generateFlags = new Set(['generate', 'lengths', 'n', 'seed']);

/** Run flags that mean nothing for an eval. */
const refusedFlags: ReadonlyMap<string, string> = new Map([
  ['--json', 'results are JSON lines in --out, the summary is on stdout'],
  ['--resume', 'rerunning the same command skips the items already answered in --out'],
  ['--trace', 'traces are kept in the store; --report links them'],
]);

/** Run flags a `--variant` may set: which model, which sub-model, how far a run may go. */
const variantFlags = new Set([
  '--model',
  '-m',
  '--sub-model',
  '--sub-models',
  '--base-url',
  '--sub-base-url',
  '--max-depth',
  '--max-iterations',
  '--max-errors',
  '--redaction-ratio',
  '--max-cost',
  '--price',
  '--max-model-calls',
  '--max-tokens',
  '--max-wall-time',
  '--max-code-blocks',
  '--max-response-chars',
  '--exec-timeout',
  '--request-timeout',
  '--max-retries',
  '--max-retry-wait',
  '--no-stream',
  '--sandbox',
]);

/**
 * Parses the words after `rlm eval`: a dataset and the eval's flags, `rlm batch`'s flags
 * (`--concurrency`, `--out`, `--max-batch-cost`) and every run flag; or `--generate sniah` with
 * `--lengths`, `--n`, `--seed` and `--out`. Throws a {@link UsageError} with one line for
 * anything malformed.
 */
export function parseEvalArguments(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): EvalCommand {
  const own: Record<string, string> = {};
  const variantTexts: string[] = [];
  const rest: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index]!;
    if (word === '--') {
      rest.push(...argv.slice(index));
      break;
    }
    const match = /^--([a-z-]+)(?:=([\s\S]*))?$/.exec(word === '-o' ? '--out' : word);
    const refused = refusedFlags.get(match ? `--${match[1]}` : word);
    if (refused !== undefined) throw new UsageError(`rlm eval takes no ${word}: ${refused}`);
    if (match === null || !(valueFlags.has(match[1]!) || match[1] === 'out')) {
      rest.push(word);
      continue;
    }
    const name = match[1]!;
    const value = match[2] ?? argv[++index];
    if (value === undefined || (match[2] === undefined && value.startsWith('--'))) {
      throw new UsageError(`--${name} needs a value`);
    }
    if (name === 'variant') variantTexts.push(value);
    else own[name] = value;
  }
  if (rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  if (own.generate !== undefined) return parseGenerate(own, rest);
  const stray = Object.keys(own).find((name) => generateFlags.has(name));
  if (stray !== undefined) throw new UsageError(`--${stray} only applies to --generate sniah`);
  if (own.out !== undefined) rest.push('--out', own.out);
  const parsed = inEvalWords(() => parseBatchArguments(rest, env));
  if (parsed.kind === 'help') return { kind: 'help' };
  const batch = parsed.options;
  const scorer = parseScorer(own.scorer ?? 'exact');
  const variants = parseVariants(variantTexts, rest, env);
  const baseline = parseBaseline(own.baseline, own['baseline-window']);
  if (baseline && variants.some((variant) => variant.name === baselineVariant)) {
    throw new UsageError(
      `--variant ${baselineVariant} clashes with --baseline direct; name the variant otherwise`,
    );
  }
  if (batch.queue !== undefined) {
    const routed = variants.find(
      (variant) => variant.run.model.baseURL !== undefined || variant.run.subModel?.baseURL,
    );
    if (routed) {
      throw new UsageError(
        `with --queue, base URLs are the workers' (variant ${routed.name} has one): each worker reaches a provider at its own --base-url, else ANTHROPIC_BASE_URL or OPENAI_BASE_URL; give it to rlm worker instead`,
      );
    }
    const replayed = [
      ...variants.map((variant) => ({ name: `variant ${variant.name}`, run: variant.run })),
      ...(baseline ? [{ name: '--baseline direct', run: batch.run }] : []),
    ].find(({ run }) => run.model.provider === 'replay' || run.subModel?.provider === 'replay');
    if (replayed) {
      throw new UsageError(
        `with --queue, jobs name their models and workers call them; a replay: reads a trace on this machine (${replayed.name} has one): drop --queue to replay it here`,
      );
    }
  }
  if (own['judge-model'] !== undefined && scorer.kind !== 'judge') {
    throw new UsageError('--judge-model only applies to --scorer judge');
  }
  return {
    kind: 'eval',
    options: {
      batch,
      scorer,
      tolerance: own.tolerance === undefined ? undefined : parseNumberTolerance(own.tolerance),
      jsonMatch: parseJsonMatch(own['json-match']),
      scorerTimeoutMs:
        own['scorer-timeout'] === undefined
          ? defaultScorerTimeoutMs
          : parseMilliseconds(own['scorer-timeout'], '--scorer-timeout'),
      judgeModel:
        own['judge-model'] === undefined
          ? batch.run.model
          : parseModelSpec(own['judge-model'], '--judge-model'),
      judgeRubric: own['judge-rubric'],
      variants,
      baseline,
      reportFile: own.report,
      confidence: parseConfidence(own.confidence),
    },
  };
}

/**
 * Runs `parse` (which parses as `rlm batch` does), saying `rlm eval` and "dataset" where its
 * errors say `rlm batch` and "jobs".
 */
function inEvalWords<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (
      UsageError.isInstance(error) &&
      /^rlm batch (needs a JSONL file|runs queries only)/.test(error.message)
    ) {
      throw new UsageError(
        'rlm eval needs a dataset: a JSONL file of {"id", "query", "context"?, "expected"} lines (rlm eval data.jsonl), or --generate sniah to write one',
        { cause: error },
      );
    }
    throw error;
  }
}

function parseGenerate(
  own: Readonly<Record<string, string>>,
  rest: readonly string[],
): EvalCommand {
  if (own.generate !== 'sniah') {
    throw new UsageError(`--generate knows one task, sniah (got ${JSON.stringify(own.generate)})`);
  }
  const other = [
    ...Object.keys(own)
      .filter((name) => !generateFlags.has(name) && name !== 'out')
      .map((name) => `--${name}`),
    ...rest,
  ];
  if (other.length > 0) {
    throw new UsageError(
      `--generate sniah takes only --lengths, --n, --seed and --out <directory> (got ${other[0]})`,
    );
  }
  const directory = own.out ?? 'sniah';
  return {
    kind: 'generate',
    task: 'sniah',
    lengths: parseTokenLengths(own.lengths ?? '8k,32k,128k'),
    n: parseWhole(own.n ?? '50', '--n', 1),
    seed: parseWhole(own.seed ?? '1', '--seed', 0),
    directory,
  };
}

function parseScorer(text: string): ScorerChoice {
  if (text === 'judge') return { kind: 'judge' };
  if (isBuiltInScorerName(text)) return { kind: 'built-in', name: text };
  if (/[/\\]|\.[cm]?[jt]s$/.test(text)) return { kind: 'module', file: text };
  throw new UsageError(
    `unknown scorer ${JSON.stringify(text)}: use ${[...builtInScorerNames, 'judge'].join(', ')}, or a module path such as ./my-scorer.mjs`,
  );
}

function parseVariants(
  texts: readonly string[],
  rest: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): EvalVariant[] {
  const base = (words: readonly string[]) => {
    const parsed = parseBatchArguments([...rest, ...words], env);
    if (parsed.kind === 'help') throw new UsageError('--variant takes run flags, not --help');
    return parsed.options.run;
  };
  if (texts.length === 0) return [{ name: defaultVariant, words: [], run: base([]) }];
  const seen = new Set<string>();
  return texts.map((text) => {
    const equals = text.indexOf('=');
    const name = equals === -1 ? text : text.slice(0, equals);
    if (!variantNamePattern.test(name)) {
      throw new UsageError(
        `--variant needs name=flags with a name of letters, digits, . _ + - (got ${JSON.stringify(text)}), e.g. --variant "haiku=--model anthropic:claude-haiku-4-5"`,
      );
    }
    if (seen.has(name)) throw new UsageError(`two variants are named ${name}; name each once`);
    seen.add(name);
    const words = equals === -1 ? [] : splitFlagWords(text.slice(equals + 1));
    for (const word of words) {
      const flag = word.startsWith('--') ? word.split('=')[0]! : word;
      if (flag.startsWith('-') && !variantFlags.has(flag)) {
        throw new UsageError(
          `--variant ${name} sets ${flag}, which a variant cannot change; a variant sets the model and the limits (--model, --sub-model, --max-iterations, --max-depth, ...)`,
        );
      }
    }
    return { name, words, run: base(words) };
  });
}

function parseBaseline(
  text: string | undefined,
  window: string | undefined,
): EvalOptions['baseline'] {
  if (text === undefined) {
    if (window !== undefined)
      throw new UsageError('--baseline-window only applies to --baseline direct');
    return undefined;
  }
  if (text !== 'direct') {
    throw new UsageError(`--baseline knows one baseline, direct (got ${JSON.stringify(text)})`);
  }
  return { windowTokens: window === undefined ? undefined : parseWindow(window) };
}

function parseWindow(text: string): number {
  try {
    const [tokens] = parseTokenLengths(text);
    return tokens!;
  } catch (error) {
    throw new UsageError(
      `--baseline-window needs the model's input window in tokens, such as 200k or 1m (got ${JSON.stringify(text)})`,
      { cause: error },
    );
  }
}

function parseJsonMatch(text: string | undefined): 'equal' | 'subset' {
  if (text === undefined || text === 'equal' || text === 'subset') return text ?? 'equal';
  throw new UsageError(`--json-match is equal or subset (got ${JSON.stringify(text)})`);
}

function parseConfidence(text: string | undefined): number {
  if (text === undefined) return 0.95;
  const value = /^0?\.\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!(value >= 0.5 && value <= 0.999)) {
    throw new UsageError(
      `--confidence needs a level from 0.5 to 0.999 such as 0.95 (got ${JSON.stringify(text)})`,
    );
  }
  return value;
}

function parseWhole(text: string, flag: string, min: number): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new UsageError(
      `${flag} needs a whole number of at least ${min} (got ${JSON.stringify(text)})`,
    );
  }
  return value;
}

/** `10s`, `1500ms`, `2m` or milliseconds. */
function parseMilliseconds(text: string, flag: string): number {
  const match = /^(\d+)\s*(ms|s|m)?$/i.exec(text.trim());
  const unit = { '': 1, ms: 1, s: 1000, m: 60_000 }[(match?.[2] ?? '').toLowerCase() as ''];
  const value = match === null ? Number.NaN : Number(match[1]) * unit;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(
      `${flag} needs a duration such as 10s or 500ms (got ${JSON.stringify(text)})`,
    );
  }
  return value;
}
