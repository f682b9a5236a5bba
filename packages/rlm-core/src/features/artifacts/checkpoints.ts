import type {
  ArtifactStore,
  Checkpoint,
  CheckpointInput,
  CheckpointSummary,
  SerializedVariableInput,
} from '../../artifact-store.js';
import type { Budget } from '../../budget.js';
import type { RunningCall } from '../feature.js';
import { measurePlainData, type PlainDataLimits } from '../../bridge/measure-plain-data.js';
import { CheckpointCorruptError } from '../../errors/checkpoint-corrupt-error.js';
import type { Message } from '../../language-model.js';

/** What one variable may be to be saved in a checkpoint; a larger one is reported lost. */
const checkpointValueLimits: PlainDataLimits = {
  maxNodes: 1_000_000,
  maxChars: 256 * 1024 * 1024,
  maxDepth: 1_000,
  strict: true,
};

/** Default of `checkpointMaxVariableBytes`: 256 MiB serialised per variable. */
export const defaultCheckpointMaxVariableBytes = 256 * 1024 * 1024;

/** What a call needs to continue where a checkpoint left off. */
export interface ResumeState {
  readonly iteration: number;
  readonly transcript: readonly Message[];
  readonly variables: Readonly<Record<string, unknown>>;
  /**
   * Bytes of variables the sandbox serialised, to hand back to `Sandbox.restoreVariables`:
   * those the checkpoint was loaded with (possibly none; see `serializedBlobs`).
   */
  readonly serializedVariables: Readonly<Record<string, Uint8Array>>;
  /** The digest of every variable the sandbox serialised (all of them, loaded or not). */
  readonly serializedDigests: Readonly<Record<string, string>>;
  /** The blob holding each serialised variable's bytes, for those not in `serializedVariables`. */
  readonly serializedBlobs: Readonly<Record<string, string>>;
  /** Variables that existed at the checkpoint but could not be saved. */
  readonly lost: readonly string[];
  /** Why each lost variable was not saved, where known (`a function`, `too large`, ...). */
  readonly lostReasons: Readonly<Record<string, string>>;
  readonly checkpoint: CheckpointSummary;
}

/** A variable a checkpoint names but does not save, and why. */
export interface SkippedVariable {
  readonly name: string;
  readonly reason: string;
  /** Over the per-variable size cap (reported in a warning event). */
  readonly tooLarge: boolean;
}

/** A checkpoint whose values are taken, ready to be saved. */
export interface PreparedCheckpoint {
  readonly input: CheckpointInput;
  readonly skipped: readonly SkippedVariable[];
  /** The digest of every serialised variable, for the next snapshot's `previousDigests`. */
  readonly digests: Readonly<Record<string, string>>;
}

/** Options of {@link prepareCheckpoint}. */
export interface PrepareCheckpointOptions {
  readonly runKey: string;
  readonly budget: Budget;
  readonly startedAt: number;
  /** Names the host set (the context, history): restored from the query, not saved. */
  readonly hostVariables: ReadonlySet<string>;
  /** Most bytes one variable's serialised form may take; larger ones are skipped. */
  readonly maxVariableBytes: number;
  /** Digests of the variables in the run's newest saved checkpoint. */
  readonly previousDigests: Readonly<Record<string, string>>;
}

/**
 * Takes the call's state after an executed step: the full transcript, the iteration, every
 * model-made variable's name and value, and the budget used. A sandbox with
 * `snapshotVariables` serialises every variable in one batch, inside itself (structured clone:
 * Maps, Sets, Dates, cycles, typed arrays...), and sends only what changed; with any other
 * sandbox, the values that are JSON data are read one by one. Functions, class instances and
 * values over `maxVariableBytes` are named but not saved, with the reason.
 */
export async function prepareCheckpoint(
  call: RunningCall,
  options: PrepareCheckpointOptions,
): Promise<PreparedCheckpoint> {
  const transcript = [...call.messages];
  const budget = { ...options.budget.usage, elapsedMs: Date.now() - options.startedAt };
  const iteration = call.iteration;
  const sandbox = call.workspace.sandbox;
  const skipped: SkippedVariable[] = [];
  const values: Record<string, unknown> = {};
  const serializedVariables: Record<string, SerializedVariableInput> = {};
  const digests: Record<string, string> = {};
  let variableNames: string[];
  if (sandbox.snapshotVariables) {
    const entries = await sandbox.snapshotVariables({
      exclude: [...options.hostVariables],
      maxBytesPerVariable: options.maxVariableBytes,
      previousDigests: options.previousDigests,
    });
    variableNames = [];
    for (const entry of entries) {
      if (options.hostVariables.has(entry.name)) continue;
      variableNames.push(entry.name);
      if (entry.state === 'skipped') {
        skipped.push({ name: entry.name, reason: entry.reason, tooLarge: entry.tooLarge });
        continue;
      }
      digests[entry.name] = entry.digest;
      serializedVariables[entry.name] =
        entry.state === 'saved'
          ? { digest: entry.digest, bytes: entry.bytes }
          : { digest: entry.digest };
    }
  } else {
    const listed = call.workspace.variables.cached.variables.filter(
      (variable) => !options.hostVariables.has(variable.name),
    );
    variableNames = listed.map((variable) => variable.name);
    for (const variable of listed) {
      if (variable.type === 'function') {
        skipped.push({ name: variable.name, reason: 'a function', tooLarge: false });
        continue;
      }
      try {
        const value = await call.workspace.variables.read(variable.name);
        if (isJsonData(value)) values[variable.name] = value;
        else skipped.push({ name: variable.name, reason: 'not JSON data', tooLarge: false });
      } catch {
        skipped.push({ name: variable.name, reason: 'not readable', tooLarge: false });
      }
    }
  }
  return {
    input: {
      runKey: options.runKey,
      callId: call.id,
      iteration,
      transcript,
      variableNames,
      variables: values,
      serializedVariables,
      budget,
      metadata: {
        depth: call.depth,
        skipped: Object.fromEntries(skipped.map((item) => [item.name, item.reason])),
      },
    },
    skipped,
    digests,
  };
}

/**
 * Saves the call's state after an executed step (see {@link prepareCheckpoint}) in one go.
 *
 * @param hostVariables names the host set (the context, history): restored from the query, not saved.
 */
export async function takeCheckpoint(
  call: RunningCall,
  options: {
    readonly artifacts: ArtifactStore;
    readonly runKey: string;
    readonly budget: Budget;
    readonly startedAt: number;
    readonly hostVariables: ReadonlySet<string>;
    readonly maxVariableBytes?: number;
  },
): Promise<CheckpointSummary> {
  const prepared = await prepareCheckpoint(call, {
    ...options,
    maxVariableBytes: options.maxVariableBytes ?? defaultCheckpointMaxVariableBytes,
    previousDigests: {},
  });
  return options.artifacts.saveCheckpoint(prepared.input);
}

/**
 * Reads what a checkpoint restores, after checking that it holds together (whatever store it
 * came from): its iteration and transcript length against the messages it holds, each message's
 * role and content, its variable names (each named once, every saved value among them), the
 * types of its values and its budget's counts. Throws `CheckpointCorruptError` naming the run
 * and what is wrong; nothing of such a checkpoint is used.
 */
export function resumeStateOf(checkpoint: Checkpoint): ResumeState {
  const problem = checkpointProblem(checkpoint);
  if (problem !== undefined) {
    throw new CheckpointCorruptError(
      `@rlm/core: checkpoint ${JSON.stringify(checkpoint.id)} of run ${JSON.stringify(checkpoint.runKey)} does not hold together (${problem}); it cannot be resumed: start the run again without resuming it`,
      { runKey: String(checkpoint.runKey), checkpointId: String(checkpoint.id) },
    );
  }
  const lost = new Set(
    checkpoint.variableNames.filter(
      (name) =>
        !Object.hasOwn(checkpoint.variables, name) &&
        !Object.hasOwn(checkpoint.serializedDigests, name) &&
        !Object.hasOwn(checkpoint.serializedVariables, name),
    ),
  );
  return {
    iteration: checkpoint.iteration,
    transcript: checkpoint.transcript,
    variables: checkpoint.variables,
    serializedVariables: checkpoint.serializedVariables,
    serializedDigests: checkpoint.serializedDigests,
    serializedBlobs: checkpoint.serializedBlobs,
    lost: [...lost],
    lostReasons: skippedReasons(checkpoint.metadata.skipped),
    checkpoint,
  };
}

/** What is wrong with a loaded checkpoint, or `undefined` when it holds together. */
function checkpointProblem(checkpoint: Checkpoint): string | undefined {
  const { transcript, variableNames, iteration, budget } = checkpoint;
  if (!Array.isArray(transcript)) return 'its transcript is not a list of messages';
  if (checkpoint.transcriptLength !== transcript.length) {
    return `it claims ${String(checkpoint.transcriptLength)} transcript messages but holds ${transcript.length}`;
  }
  if (!Number.isSafeInteger(iteration) || iteration < 0 || iteration > transcript.length) {
    return `its iteration ${String(iteration)} is not a count of the steps its ${transcript.length} messages record`;
  }
  const badMessage = transcript.findIndex(
    (message: unknown) =>
      typeof message !== 'object' ||
      message === null ||
      !['user', 'assistant'].includes((message as Message).role) ||
      !(
        typeof (message as Message).content === 'string' ||
        Array.isArray((message as Message).content)
      ),
  );
  if (badMessage >= 0) return `transcript message ${badMessage} is not a user or assistant message`;
  if (!Array.isArray(variableNames) || !variableNames.every((name) => typeof name === 'string')) {
    return 'its variable names are not a list of strings';
  }
  const names = new Set(variableNames);
  if (names.size !== variableNames.length) return 'it names a variable twice';
  const kept: readonly [string, unknown, (value: unknown) => boolean][] = [
    ['variables', checkpoint.variables, () => true],
    ['serializedVariables', checkpoint.serializedVariables, (value) => value instanceof Uint8Array],
    ['serializedDigests', checkpoint.serializedDigests, (value) => typeof value === 'string'],
    ['serializedBlobs', checkpoint.serializedBlobs, (value) => typeof value === 'string'],
  ];
  for (const [field, record, isValue] of kept) {
    if (typeof record !== 'object' || record === null) return `its ${field} is not an object`;
    for (const [name, value] of Object.entries(record)) {
      if (!names.has(name))
        return `its ${field} hold ${JSON.stringify(name)}, which it does not name`;
      if (!isValue(value))
        return `its ${field} hold a wrong kind of value for ${JSON.stringify(name)}`;
    }
  }
  if (typeof budget !== 'object' || budget === null) return 'it has no budget';
  for (const field of ['inputTokens', 'outputTokens', 'modelCalls'] as const) {
    if (!Number.isSafeInteger(budget[field]) || budget[field] < 0) {
      return `its budget's ${field} is not a count`;
    }
  }
  for (const field of ['cacheReadTokens', 'cacheWriteTokens', 'unpricedModelCalls'] as const) {
    const count = budget[field];
    if (count !== undefined && (!Number.isSafeInteger(count) || count < 0)) {
      return `its budget's ${field} is not a count`;
    }
  }
  const { costUsd } = budget;
  if (costUsd !== undefined && (!Number.isFinite(costUsd) || costUsd < 0)) {
    return "its budget's costUsd is not an amount";
  }
  return undefined;
}

/** The `skipped` metadata of a checkpoint: name -> reason; anything else is ignored. */
function skippedReasons(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

/**
 * The variables a resume restores: the JSON ones and the serialised ones (which the sandbox
 * may still be restoring), less the lost.
 */
export function restoredNames(state: ResumeState): string[] {
  const names = new Set([
    ...Object.keys(state.variables),
    ...Object.keys(state.serializedDigests),
    ...Object.keys(state.serializedVariables),
  ]);
  const lost = new Set(state.lost);
  return [...names].filter((name) => !lost.has(name)).sort();
}

/** The note the model reads after a resume. */
export function resumeNote(state: ResumeState): string {
  const restored = restoredNames(state);
  const lost = state.lost.map((name) =>
    state.lostReasons[name] === undefined ? name : `${name} (${state.lostReasons[name]})`,
  );
  return [
    `The run was interrupted and has resumed after iteration ${state.iteration}.`,
    `Variables restored: ${restored.length > 0 ? restored.join(', ') : '(none)'}.`,
    state.lost.length > 0
      ? `Variables lost (they could not be saved): ${lost.join(', ')}. Recompute them if you need them.`
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
