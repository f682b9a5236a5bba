import type { ArtifactStore, Checkpoint, CheckpointSummary } from './artifact-store.js';
import type { Budget } from './budget.js';
import type { CallState } from './call-state.js';
import { measurePlainData, type PlainDataLimits } from './bridge/measure-plain-data.js';
import type { Message } from './language-model.js';

/** What one variable may be to be saved in a checkpoint; a larger one is reported lost. */
const checkpointValueLimits: PlainDataLimits = {
  maxNodes: 1_000_000,
  maxChars: 256 * 1024 * 1024,
  maxDepth: 1_000,
  strict: true,
};

/** What a call needs to continue where a checkpoint left off. */
export interface ResumeState {
  readonly iteration: number;
  readonly transcript: readonly Message[];
  readonly variables: Readonly<Record<string, unknown>>;
  /** Variables that existed at the checkpoint but could not be saved. */
  readonly lost: readonly string[];
  readonly checkpoint: CheckpointSummary;
}

/**
 * Saves the call's state after an executed step: the full transcript, the iteration, every
 * model-made variable's name and the values that are JSON data (functions, class instances,
 * Maps, cycles and the like are named but not saved), and the budget used.
 *
 * @param hostVariables names the host set (the context, history): restored from the query, not saved.
 */
export async function takeCheckpoint(
  call: CallState,
  options: {
    readonly artifacts: ArtifactStore;
    readonly runKey: string;
    readonly budget: Budget;
    readonly startedAt: number;
    readonly hostVariables: ReadonlySet<string>;
  },
): Promise<CheckpointSummary> {
  const listed = call.variables!.cached.variables.filter(
    (variable) => !options.hostVariables.has(variable.name),
  );
  const values: Record<string, unknown> = {};
  for (const variable of listed) {
    if (variable.type === 'function') continue;
    try {
      const value = await call.variables!.read(variable.name);
      if (isJsonData(value)) values[variable.name] = value;
    } catch {
      // Not readable or not cloneable: named in variableNames, so it is reported lost on resume.
    }
  }
  return options.artifacts.saveCheckpoint({
    runKey: options.runKey,
    callId: call.id,
    iteration: call.iteration,
    transcript: call.messages,
    variableNames: listed.map((variable) => variable.name),
    variables: values,
    budget: { ...options.budget.usage, elapsedMs: Date.now() - options.startedAt },
    metadata: { depth: call.depth },
  });
}

/** Reads what a checkpoint restores. */
export function resumeStateOf(checkpoint: Checkpoint): ResumeState {
  return {
    iteration: checkpoint.iteration,
    transcript: checkpoint.transcript,
    variables: checkpoint.variables,
    lost: checkpoint.variableNames.filter((name) => !(name in checkpoint.variables)),
    checkpoint,
  };
}

/** The note the model reads after a resume. */
export function resumeNote(state: ResumeState): string {
  const restored = Object.keys(state.variables);
  return [
    `The run was interrupted and has resumed after iteration ${state.iteration}.`,
    `Variables restored: ${restored.length > 0 ? restored.join(', ') : '(none)'}.`,
    state.lost.length > 0
      ? `Variables lost (they could not be saved): ${state.lost.join(', ')}. Recompute them if you need them.`
      : 'No variables were lost.',
  ].join('\n');
}

/**
 * Whether a value survives a JSON round trip unchanged (plain objects, arrays and primitives)
 * and is small enough to save: checked in work bounded by the node limit, whatever the value's
 * shared references or depth.
 */
function isJsonData(value: unknown): boolean {
  return measurePlainData(value, checkpointValueLimits).ok;
}
