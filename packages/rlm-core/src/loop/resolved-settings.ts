import type { Budget } from '../budget.js';
import type { ConcurrencyGate } from '../concurrency-gate.js';
import type { RlmEvent } from '../events.js';
import type { LanguageModel } from '../language-model.js';
import type { ModelChoice } from '../model-choice.js';
import type { CommandQueueSettings } from '../bridge/bridge-router.js';
import type { SandboxFactory } from '../sandbox.js';
import type { ResolvedLimits } from './limits-settings.js';
import type { SchemaCheck } from '../schema-check.js';
import type { VariableSyncSettings } from '../variable-space.js';

/**
 * Settings the loop runs with, all defaults applied (each feature resolves its own; the limits
 * come from {@link resolveLimits}).
 */
export interface ResolvedSettings extends ResolvedLimits {
  readonly llm: LanguageModel;
  readonly subLlm: LanguageModel;
  /** The models code may choose per call (`subModels`), made once for the RLM's life. */
  readonly modelChoice: ModelChoice;
  readonly sandboxFactory: SandboxFactory;
  readonly systemPrompt: string | undefined;
  readonly redactionRatio: number;
  readonly redactionMinChars: number;
  readonly codeLanguages: readonly string[];
  readonly outputSchema: SchemaCheck | undefined;
  readonly commandQueue: Required<CommandQueueSettings>;
  readonly variableSync: VariableSyncSettings;
}

/** Shared state of one top-level run: the budget, gate and event sink all calls use. */
export interface RunResources {
  readonly budget: Budget;
  readonly gate: ConcurrencyGate;
  readonly emit: (event: RlmEvent) => void;
  /** When the run started (ms since the epoch). */
  readonly startedAt: number;
}
