import type { Budget } from '../budget.js';
import type { ConcurrencyGate } from '../concurrency-gate.js';
import type { RlmEvent } from '../events.js';
import type { LanguageModel } from '../language-model.js';
import type { ModelChoice } from '../model-choice.js';
import type { CommandQueueSettings } from '../bridge/bridge-router.js';
import type { SandboxFactory, SandboxLimits } from '../sandbox.js';
import type { SchemaCheck } from '../schema-check.js';
import type { VariableSyncSettings } from '../variable-space.js';

/** Settings the loop runs with, all defaults applied (each feature resolves its own). */
export interface ResolvedSettings {
  readonly llm: LanguageModel;
  readonly subLlm: LanguageModel;
  /** The models code may choose per call (`subModels`), made once for the RLM's life. */
  readonly modelChoice: ModelChoice;
  readonly sandboxFactory: SandboxFactory;
  readonly maxDepth: number;
  readonly maxIterations: number;
  readonly systemPrompt: string | undefined;
  readonly maxOutputChars: number;
  readonly maxCodeBlocksPerResponse: number;
  readonly maxResponseChars: number;
  readonly redactionRatio: number;
  readonly redactionMinChars: number;
  readonly codeLanguages: readonly string[];
  readonly execTimeoutMs: number;
  readonly sandboxLimits: Partial<SandboxLimits>;
  readonly maxResponseTokens: number | undefined;
  readonly outputSchema: SchemaCheck | undefined;
  readonly stallLimit: number;
  /** Code blocks in a row that may throw before the call ends; `undefined`: no limit. */
  readonly maxConsecutiveErrors: number | undefined;
  readonly historyBudgetChars: number;
  readonly commandQueue: Required<CommandQueueSettings>;
  readonly variableSync: VariableSyncSettings;
  readonly maxConcurrentChildren: number;
}

/** Shared state of one top-level run: the budget, gate and event sink all calls use. */
export interface RunResources {
  readonly budget: Budget;
  readonly gate: ConcurrencyGate;
  readonly emit: (event: RlmEvent) => void;
  /** When the run started (ms since the epoch). */
  readonly startedAt: number;
}
