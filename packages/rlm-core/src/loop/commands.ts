import type { ArtifactRef } from '../artifact-store.js';
import type { FinalSource } from '../events.js';
import type { GenerateResult, Message, ToolResultPart } from '../language-model.js';
import type { HistoryEntry } from '../history-entry.js';
import type { SetupCounts } from '../prompts.js';
import type { Sandbox } from '../sandbox.js';
import type { VariableSyncReason } from '../variable-space.js';
import type { CallState, Workspace } from './call-state.js';
import type { CallEvent } from './call-event.js';
import type { PendingFinal } from './final-answer.js';

/** How a call gets its sandbox and its first variables. */
export interface CallSetup {
  /** An existing sandbox to use (the persistent root's); otherwise one is created. */
  readonly sandbox?: Sandbox;
  /** Variables to set read-only before the first step. */
  readonly variables: Readonly<Record<string, unknown>>;
  /**
   * The earlier queries of a persistent session, oldest first (empty otherwise): `history`
   * holds them, then the call's own entry (see `CurrentQueryHistory`).
   */
  readonly history: readonly HistoryEntry[];
  /** Counts shown in the prompt's metadata. */
  readonly counts: SetupCounts;
  /** Names the host sets (context, history): never checkpointed. */
  readonly hostVariables: ReadonlySet<string>;
}

/**
 * Where a call's conversation starts when a feature continues earlier work (a checkpoint): the
 * kernel takes it as it is, in place of the fresh start (the context message, iteration 0).
 */
export interface ResumedStep {
  /** The conversation so far, the context message first. */
  readonly messages: readonly Message[];
  /** Steps already taken: the next one is `iteration + 1`. */
  readonly iteration: number;
  /** Events published as the call starts from here (e.g. `resumed`). */
  readonly events: readonly CallEvent[];
}

/**
 * The commands of the loop, consumed one at a time by the kernel (`loop/scheduler.ts`). Every
 * command names its call. Slow work (a model call, code, a sandbox) runs outside the queue and
 * comes back as one of these; only their handlers change a {@link CallState}.
 */
export type Command =
  /** Registers a new call and starts making its sandbox. */
  | {
      readonly type: 'StartCall';
      readonly callId: string;
      readonly call: CallState;
      readonly setup: CallSetup;
    }
  /** The call's sandbox is ready, its variables set, a checkpoint (if any) restored. */
  | {
      readonly type: 'WorkspaceReady';
      readonly callId: string;
      readonly workspace: Workspace;
      readonly setup: CallSetup;
      readonly resumed: ResumedStep | undefined;
    }
  /** The call's variable listing was refreshed; what follows depends on why. */
  | {
      readonly type: 'VariablesSynced';
      readonly callId: string;
      readonly reason: VariableSyncReason;
    }
  /** Ask the model for the next step (or, out of iterations, for the final answer). */
  | { readonly type: 'GenerateStep'; readonly callId: string }
  /** The model answered a step: plan it (see `plan-step.ts`). */
  | { readonly type: 'ModelAnswered'; readonly callId: string; readonly response: GenerateResult }
  /** The step's code has run (or there was none to run). */
  | {
      readonly type: 'CodeExecuted';
      readonly callId: string;
      readonly response: GenerateResult;
      /** What the model is shown of each block that ran. */
      readonly outputs: readonly string[];
      /** The error each block that ran ended with (`undefined`: none), in order. */
      readonly errors: readonly (string | undefined)[];
      readonly toolResults: readonly ToolResultPart[];
      /** What the model is told about blocks that did not run (cut off, past the limit). */
      readonly notes: readonly string[];
      /** The prose's FINAL answer, taken when the code recorded none. */
      readonly fallbackFinal: PendingFinal | undefined;
    }
  /** Model code called `SUBMIT(value)` or `FINAL_VAR(name)`: the first one counts. */
  | { readonly type: 'RecordFinal'; readonly callId: string; readonly final: PendingFinal }
  /** A final answer could not be accepted: the model is told why and the loop goes on. */
  | {
      readonly type: 'AnswerRejected';
      readonly callId: string;
      readonly problem: string;
      readonly response: GenerateResult;
      readonly outputs: readonly string[];
      /** Tool results to send back, the rejected SUBMIT call's error among them. */
      readonly toolResults: readonly ToolResultPart[];
      /** Whether the problem goes back as a note (false: it is the SUBMIT call's result). */
      readonly asNote: boolean;
    }
  /** The model answered the forced final prompt. */
  | { readonly type: 'ExtractAnswered'; readonly callId: string; readonly response: GenerateResult }
  /** Model code called a host function; run it (see `bridge/bridge-router.ts`). */
  | { readonly type: 'HandleBridgeCall'; readonly callId: string; readonly requestId: string }
  /** A host call settled: the call forgets it. */
  | { readonly type: 'BridgeSettled'; readonly callId: string; readonly requestId: string }
  /** A host call left a note for the model (see `HostCall.note`). */
  | { readonly type: 'HostNote'; readonly callId: string; readonly note: string }
  /** A code block ended: host calls it did not await are cancelled. */
  | { readonly type: 'BlockEnded'; readonly callId: string }
  /** The call has its answer. */
  | {
      readonly type: 'Finalize';
      readonly callId: string;
      readonly answer: unknown;
      readonly source: FinalSource;
      readonly artifact?: ArtifactRef;
    }
  /** The call ends with an error. */
  | { readonly type: 'FailCall'; readonly callId: string; readonly error: unknown };

/** The commands the kernel hands on (all but start, finalize and fail). */
export type StepCommand = Exclude<Command, { type: 'StartCall' | 'Finalize' | 'FailCall' }>;

/** The commands of host calls, handled where the bridge is (`rlm-run.ts`). */
export type BridgeCommand = Extract<
  Command,
  { type: 'HandleBridgeCall' | 'BridgeSettled' | 'BlockEnded' }
>;
