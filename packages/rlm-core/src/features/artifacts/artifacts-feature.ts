import { artifactFunctionNames, callArtifactFunction } from './artifact-functions.js';
import type { ArtifactRef, ArtifactStore } from '../../artifact-store.js';
import type { Budget } from '../../budget.js';
import { Checkpointer } from './checkpointer.js';
import { type ResumeState, restoredNames, resumeNote } from './checkpoints.js';
import { unrestoredWarning } from './background-restore.js';
import { renderArtifactCatalog } from './render-artifact-catalog.js';
import { answerText } from '../../answer-text.js';
import { appendMessage } from '../../append-message.js';
import { errorMessage } from '../../error-message.js';
import type { Message } from '../../language-model.js';
import type { ArtifactQuota } from './artifact-quota.js';
import type {
  CallEvent,
  CallState,
  Feature,
  FeatureHostFunction,
  ResumedStep,
} from '../feature.js';

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
  /** How old the newest checkpoint may grow while executions preempt snapshots. */
  readonly checkpointMaxLagMs: number;
  /** The checkpoint the root call continues from (`query(..., { resume: true })`), if any. */
  readonly resume?: ResumeState;
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
    checkpointer ??= new Checkpointer(
      artifacts,
      {
        saved: (summary, iteration, durationMs) =>
          options.emit(call, {
            type: 'checkpoint',
            iteration,
            checkpointId: summary.id,
            durationMs,
          }),
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
        unrestored: (variables) =>
          options.emit(call, {
            type: 'warning',
            code: 'resume-variables-lost',
            message: unrestoredWarning(variables),
          }),
      },
      options.checkpointMaxLagMs,
    );
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
      return `Available artifacts (load(name) in code, "@name" in tool inputs):\n${renderArtifactCatalog(await artifacts.catalog(), options.catalogChars)}`;
    },
    /**
     * Resumes from a checkpoint: its JSON variables at once, the sandbox-serialised ones in the
     * background while the model is first asked (see `Checkpointer.resume`).
     */
    async beforeFirstStep(call, workspace): Promise<ResumedStep | undefined> {
      if (!options.resume || !isRoot(call)) return undefined;
      await workspace.variables.injectAll(options.resume.variables);
      const state = checkpointerFor(call).resume(workspace.sandbox, options.resume);
      const messages: Message[] = [...state.transcript];
      appendMessage(messages, { role: 'user', content: resumeNote(state) });
      return {
        messages,
        iteration: state.iteration,
        events: [
          {
            type: 'resumed',
            iteration: state.iteration,
            restored: restoredNames(state),
            lost: state.lost,
          },
        ],
      };
    },
    // A background restore, or a snapshot the next execution may not preempt, finishes before
    // the sandbox is used.
    beforeSandboxUse: (call) =>
      isRoot(call) && checkpointer ? checkpointer.snapshotTaken() : Promise.resolve(),
    takeNote: (call) => (isRoot(call) ? checkpointer?.takeRestoreNote() : undefined),
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
    // The root's checkpoint snapshots being taken finish first, unless the run answered: the
    // call is settled right after its sandbox is released, so a microtask later the checkpoints
    // of an answered run are superseded and need no waiting.
    beforeDispose: (call) =>
      isRoot(call) && checkpointer
        ? Promise.resolve().then(() => checkpointer?.snapshotsSettled())
        : undefined,
    /**
     * An answered run needs no checkpoint any more and answers at once (`pendingWrites` lets
     * `dispose` wait for a save under way); a failed root settles once the checkpoint in flight
     * is saved, so the run can be resumed from it.
     */
    beforeSettle(call, outcome) {
      if (!isRoot(call) || !checkpointer) return undefined;
      if (outcome === 'answered') {
        checkpointer.supersede();
        return undefined;
      }
      checkpointer.close();
      return checkpointer.saved();
    },
    pendingWrites: () => checkpointer?.saved() ?? Promise.resolve(),
  };
}
