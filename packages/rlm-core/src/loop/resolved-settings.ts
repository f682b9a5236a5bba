import type { ArtifactStore } from '../artifact-store.js';
import type { Budget } from '../budget.js';
import type { ConcurrencyGate } from '../concurrency-gate.js';
import type { DurableToolStore } from '../durable-tool-store.js';
import type { RlmEvent } from '../events.js';
import type { HostToolRegistry } from '../host-tools.js';
import type { LanguageModel } from '../language-model.js';
import type { ModelChoice } from '../model-choice.js';
import type { QuotaSettings } from '../quotas/artifact-quota.js';
import type { CommandQueueSettings } from '../rlm-settings.js';
import type { SandboxFactory, SandboxLimits } from '../sandbox.js';
import type { SchemaCheck } from '../schema-check.js';
import type { VariableSyncSettings } from '../variable-space.js';

/** Settings the loop runs with, all defaults applied. */
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
  readonly tools: HostToolRegistry;
  readonly toolStore: DurableToolStore | undefined;
  readonly largeAnswerChars: number;
  readonly catalogChars: number;
  readonly checkpointMaxVariableBytes: number;
  readonly checkpointMaxLagMs: number;
  readonly quotas: Required<QuotaSettings>;
  readonly maxConcurrentChildren: number;
}

/** Shared state of one top-level run: the budget, gate and event sink all calls use. */
export interface RunResources {
  readonly budget: Budget;
  readonly gate: ConcurrencyGate;
  readonly emit: (event: RlmEvent) => void;
  /** When the run started (ms since the epoch). */
  readonly startedAt: number;
  /** The run's storage: the store scoped to `runKey`. */
  readonly storage?: { readonly artifacts: ArtifactStore; readonly runKey: string };
}
