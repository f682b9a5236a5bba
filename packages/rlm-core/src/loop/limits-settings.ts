import { defaultMaxConcurrency } from '../concurrency-gate.js';
import { groupedOrFlat } from '../flat-settings.js';
import type { SandboxLimits } from '../sandbox.js';
import { positiveInteger } from '../settings-checks.js';

/** The limits the loop keeps on every call (`createRLM({ limits })`). */
export interface LimitsSettings {
  /**
   * Levels of full RLMs, counting the root. With 2 (the default) the root's `sub_rlm`
   * starts a full child RLM and a child's `sub_rlm` is one plain model call.
   */
  readonly maxDepth?: number;
  /** Model responses per call before the forced final prompt. Default 20. */
  readonly maxIterations?: number;
  /** Execution output kept in the prompt per code block, in characters. Default 20,000. */
  readonly maxOutputChars?: number;
  /**
   * Code blocks run per model response. Blocks past it do not run, and the model is told how
   * many did not. Default 20.
   */
  readonly maxCodeBlocksPerResponse?: number;
  /**
   * Characters of one model response kept in the conversation sent back to the model: longer
   * responses keep their head and tail around a line stating how much was left out and the
   * true length (as outputs do). Default 20,000.
   */
  readonly maxResponseChars?: number;
  /** Output tokens per model response. Adapter default when unset. */
  readonly maxResponseTokens?: number;
  /**
   * The most model calls in flight at once, across the whole run tree. Default 64. The run
   * starts at this cap, halves the number when the API answers 429 (and starts no call for its
   * `retry-after`), and raises it again by one per call answered without 429, never above the
   * cap; `concurrency` events show each change.
   */
  readonly maxConcurrency?: number;
  /**
   * Most `sub_rlm` child sandboxes alive at once in one `query()`; children beyond it wait for
   * a slot (in order) before their sandbox is created. Default 8.
   */
  readonly maxConcurrentChildren?: number;
  /** Per code-block execution timeout in ms. Default 60,000. */
  readonly execTimeoutMs?: number;
  /** The sandbox's other limits (its heap, its wait on host calls, its output). */
  readonly sandbox?: Partial<Omit<SandboxLimits, 'timeoutMs'>>;
  /** Empty responses in a row after which the loop goes straight to the final prompt. Default 3. */
  readonly stallLimit?: number;
  /**
   * Code blocks in a row that may throw (an uncaught error, a timeout) before a call stops: it
   * then rejects with `NoFinalAnswerError`, whose reason names the limit and the last error and
   * whose `partialAnswer` is the model's last text. A block that runs through starts the count
   * again. Each call (the root, each `sub_rlm` child) counts its own. Unset: no limit. The CLI
   * flag is `--max-errors`.
   */
  readonly maxConsecutiveErrors?: number;
  /**
   * Characters of conversation sent per model call. Older steps beyond it are compacted into a
   * summary (code and output heads) however long the run goes. Default 100,000.
   */
  readonly historyBudgetChars?: number;
}

/** The deprecated flat names of the limits, as `createRLM` still takes them. */
export type FlatLimitsSettings = Omit<LimitsSettings, 'sandbox'> & {
  readonly sandboxLimits?: LimitsSettings['sandbox'];
};

/** The limits that are numbers. */
type NumericLimit = Exclude<keyof LimitsSettings, 'sandbox'>;

/** The limits with every default applied. */
export interface ResolvedLimits {
  readonly maxDepth: number;
  readonly maxIterations: number;
  readonly maxOutputChars: number;
  readonly maxCodeBlocksPerResponse: number;
  readonly maxResponseChars: number;
  readonly maxResponseTokens: number | undefined;
  readonly maxConcurrency: number;
  readonly maxConcurrentChildren: number;
  readonly execTimeoutMs: number;
  readonly sandboxLimits: Partial<SandboxLimits>;
  readonly stallLimit: number;
  /** Code blocks in a row that may throw before the call ends; `undefined`: no limit. */
  readonly maxConsecutiveErrors: number | undefined;
  readonly historyBudgetChars: number;
}

/**
 * Resolves the `limits` group, and the deprecated flat names that alias it (one
 * `RLM_DEP_FLAT_SETTINGS` warning per name), applying defaults and checking each value.
 *
 * @throws {ConfigurationError} for a flat name and its `limits.` path set to different values.
 * @throws {RangeError} for a value out of its range, naming its `limits.` path.
 */
export function resolveLimits(
  settings: FlatLimitsSettings & { readonly limits?: LimitsSettings },
): ResolvedLimits {
  const group = settings.limits ?? {};
  const limit = (name: NumericLimit) =>
    groupedOrFlat(group[name], settings[name], name, `limits.${name}`);
  const integer = (name: NumericLimit, fallback: number) =>
    positiveInteger(limit(name) ?? fallback, `limits.${name}`);
  const maxConsecutiveErrors = limit('maxConsecutiveErrors');
  return {
    maxDepth: integer('maxDepth', 2),
    maxIterations: integer('maxIterations', 20),
    maxOutputChars: integer('maxOutputChars', 20_000),
    maxCodeBlocksPerResponse: integer('maxCodeBlocksPerResponse', 20),
    maxResponseChars: integer('maxResponseChars', 20_000),
    maxResponseTokens: limit('maxResponseTokens'),
    maxConcurrency: integer('maxConcurrency', defaultMaxConcurrency),
    maxConcurrentChildren: integer('maxConcurrentChildren', 8),
    execTimeoutMs: integer('execTimeoutMs', 60_000),
    sandboxLimits:
      groupedOrFlat(group.sandbox, settings.sandboxLimits, 'sandboxLimits', 'limits.sandbox') ?? {},
    stallLimit: integer('stallLimit', 3),
    maxConsecutiveErrors:
      maxConsecutiveErrors === undefined
        ? undefined
        : positiveInteger(maxConsecutiveErrors, 'limits.maxConsecutiveErrors'),
    historyBudgetChars: integer('historyBudgetChars', 100_000),
  };
}
