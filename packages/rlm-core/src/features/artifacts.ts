import { artifactFunctionNames, callArtifactFunction } from '../artifact-functions.js';
import type { ArtifactRef, ArtifactStore } from '../artifact-store.js';
import type { Budget } from '../budget.js';
import { Checkpointer } from '../checkpointer.js';
import type { ResumeState } from '../checkpoints.js';
import type { CallState, Workspace } from '../loop/call-state.js';
import type { ResumedStep } from '../loop/commands.js';
import { answerText } from '../loop/final-answer.js';
import { errorMessage } from '../loop/error-message.js';
import type { CallEvent } from '../loop/scheduler.js';
import type { ArtifactQuota } from '../quotas/artifact-quota.js';
import type { Feature, FeatureHostFunction } from './feature.js';

/** What the artifacts feature works with. */
export interface ArtifactsFeatureOptions {
  /** The run's store, scoped to `runKey`. */
  readonly artifacts: ArtifactStore;
  readonly runKey: string;
  /** The run's artifact quota, shared with host tools. */
  readonly quota: ArtifactQuota;
  readonly budget: Budget;
  /** When the run started (ms since the epoch). */
  readonly startedAt: number;
  /** Characters of the artifact catalog in the prompt, at most. */
  readonly catalogChars: number;
  /** A root answer longer than this is also stored as a blob. */
  readonly largeAnswerChars: number;
  /** Variables whose serialised form is larger are not checkpointed. */
  readonly checkpointMaxVariableBytes: number;
  readonly emit: (call: CallState, event: CallEvent) => void;
}

/** The host functions the artifacts feature adds. */
export const artifactsFeatureNames: readonly string[] = artifactFunctionNames;

/**
 * Artifacts and recovery: `store` / `load` / `list_artifacts` in the sandbox, the artifact
 * catalog in the prompt, a checkpoint of the root call after each executed step, resuming from
 * one, and a stored copy of a large root answer.
 */
export function artifactsFeature(options: ArtifactsFeatureOptions): Feature {
  const { artifacts } = options;
  /** The root call's checkpoints, made on first use. */
  let checkpointer: Checkpointer | undefined;
  const checkpointerFor = (call: CallState): Checkpointer => {
    checkpointer ??= new Checkpointer(artifacts, {
      saved: (summary, iteration, durationMs) =>
        options.emit(call, { type: 'checkpoint', iteration, checkpointId: summary.id, durationMs }),
      skipped: (variables) =>
        options.emit(call, {
          type: 'warning',
          code: 'checkpoint-variable-skipped',
          message: `Not saved in the checkpoint (over checkpointMaxVariableBytes, ${options.checkpointMaxVariableBytes} bytes): ${variables.map((variable) => variable.name).join(', ')}`,
        }),
      failed: (error) =>
        options.emit(call, {
          type: 'warning',
          code: 'checkpoint-failed',
          message: `Could not save a checkpoint: ${errorMessage(error)}`,
        }),
    });
    return checkpointer;
  };
  const artifactFunction =
    (name: (typeof artifactFunctionNames)[number]): FeatureHostFunction =>
    ({ call, request }) =>
      callArtifactFunction(
        name,
        request.args,
        artifacts,
        { callId: call.id, iteration: call.iteration },
        options.quota,
      );
  const isRoot = (call: CallState) => call.parentId === undefined;
  return {
    name: 'artifacts',
    hostFunctions: Object.fromEntries(
      artifactFunctionNames.map((name) => [name, artifactFunction(name)]),
    ),
    replHelp: [
      '- `await store(name, value, { type, description, purpose })`: keep a value as a named,',
      '  immutable artifact that survives crashes; `await load(name)` reads it back;',
      '  `await list_artifacts()` lists them.',
    ],
    async promptSection() {
      return `Available artifacts (load(name) in code, "@name" in tool inputs):\n${await artifacts.formatCatalog(options.catalogChars)}`;
    },
    async beforeFirstStep(call, workspace, setup) {
      if (!setup.resume) return undefined;
      if (isRoot(call)) checkpointerFor(call).resumeFrom(setup.resume.serializedDigests);
      return restore(workspace, setup.resume);
    },
    beforeExecute: (call) =>
      isRoot(call) && checkpointer ? checkpointer.snapshotTaken() : Promise.resolve(),
    afterExecutedStep(call) {
      if (!isRoot(call)) return;
      checkpointerFor(call).start(call, {
        runKey: options.runKey,
        budget: options.budget,
        startedAt: options.startedAt,
        hostVariables: call.hostVariables,
        maxVariableBytes: options.checkpointMaxVariableBytes,
      });
    },
    async onFinal(call, answer): Promise<ArtifactRef | undefined> {
      if (!isRoot(call)) return undefined;
      const content = answerText(answer);
      return content.length > options.largeAnswerChars ? artifacts.store(content) : undefined;
    },
    // The root's last checkpoint snapshot, if one is being taken, finishes first.
    beforeDispose: (call) => (isRoot(call) ? checkpointer?.snapshotTaken() : undefined),
    // The root settles once the checkpoint in flight is saved, so the store is not closed under it.
    beforeSettle(call) {
      if (!isRoot(call) || !checkpointer) return undefined;
      checkpointer.close();
      return checkpointer.saved();
    },
  };
}

/** Restores a checkpoint's variables into the sandbox; says which ones could not be. */
async function restore(workspace: Workspace, resumed: ResumeState): Promise<ResumedStep> {
  const { sandbox, variables } = workspace;
  await variables.injectAll(resumed.variables);
  const serializedNames = Object.keys(resumed.serializedVariables);
  let unrestored: string[] = [];
  if (serializedNames.length > 0) {
    unrestored = sandbox.restoreVariables
      ? await sandbox.restoreVariables(resumed.serializedVariables)
      : serializedNames;
  }
  const state: ResumeState =
    unrestored.length === 0
      ? resumed
      : {
          ...resumed,
          lost: [...resumed.lost, ...unrestored],
          lostReasons: {
            ...resumed.lostReasons,
            ...Object.fromEntries(
              unrestored.map((name) => [name, 'this sandbox could not restore it']),
            ),
          },
        };
  return {
    state,
    restored: [...Object.keys(state.variables), ...serializedNames].filter(
      (name) => !unrestored.includes(name),
    ),
  };
}
