import type { ArtifactRef } from '../artifact-store.js';
import { measure } from '../describe-context.js';
import type { FinalSource } from '../events.js';
import type { LanguageModel, Message } from '../language-model.js';
import type { Sandbox } from '../sandbox.js';
import type { HistoryEntry } from '../history-entry.js';
import type { VariableSpace } from '../variable-space.js';
import type { PendingFinal } from './final-answer.js';

/** How a call ended well: what its promise resolves with. */
export interface CallResult {
  readonly answer: unknown;
  readonly source: FinalSource;
  readonly iterations: number;
  /** The stored copy of a large root answer. */
  readonly artifact?: ArtifactRef;
}

/** How a call's promise settles. */
export interface CallSettlement {
  resolve(result: CallResult): void;
  reject(error: unknown): void;
}

/** The sandbox side of a call, made whole once its sandbox is ready. */
export interface Workspace {
  readonly sandbox: Sandbox;
  /** Host-side view of the sandbox's variables. */
  readonly variables: VariableSpace;
  /** Whether the call disposes its sandbox when it ends (false for the persistent root). */
  readonly ownsSandbox: boolean;
  /** Gives back the child-sandbox slot the call holds; idempotent (a no-op for the root). */
  readonly releaseSlot: () => void;
}

/**
 * The state of one RLM call (the root query or a `sub_rlm` child). Only a command handler
 * changes it; spawned work reads it and returns a command.
 */
export interface CallState {
  readonly id: string;
  readonly depth: number;
  readonly query: string;
  readonly context: unknown;
  readonly contextLength: number;
  readonly parentId: string | undefined;
  /** Names the host sets (context, history): never checkpointed. */
  readonly hostVariables: ReadonlySet<string>;
  /** The model of this call's steps (a child's may be one its parent's code chose). */
  readonly llm: LanguageModel;
  /** Aborts this call's model requests and code executions. */
  readonly abort: AbortController;
  readonly settlement: CallSettlement;
  /** Child call ids still running. */
  readonly children: Set<string>;
  /** Bridge request ids still pending. */
  readonly bridgeRequests: Set<string>;
  /** The conversation sent to the model. */
  readonly messages: Message[];
  /** Set once, whole, when the sandbox is ready; `undefined` while the call starts. */
  workspace: Workspace | undefined;
  iteration: number;
  stepStartedAt: number;
  /** A final answer model code recorded during the running step (SUBMIT / FINAL_VAR). */
  pendingFinal: PendingFinal | undefined;
  /** Notes for the model from host calls of the running step (see `HostCall.note`). */
  readonly hostNotes: string[];
  /** The last non-empty model text: the partial answer when the call fails. */
  lastText: string;
  /** Empty model responses in a row (stall detection). */
  emptyStreak: number;
  /** Code blocks in a row that threw (see `maxConsecutiveErrors`). */
  errorStreak: number;
  /** The earlier queries `history` holds before this call's own entry (set with the workspace). */
  earlierHistory: readonly HistoryEntry[];
  /** Steps compacted out of the prompt that `history` already holds. */
  stepsInHistory: number;
  done: boolean;
}

/** A call whose sandbox is ready: every step runs on one of these. */
export type RunningCall = CallState & { readonly workspace: Workspace };

/** Whether the call's sandbox is ready. */
export function isRunning(call: CallState): call is RunningCall {
  return call.workspace !== undefined;
}

/** What a new call is made of. */
export interface CallInit {
  readonly id: string;
  readonly depth: number;
  readonly query: string;
  readonly context: unknown;
  readonly parentId: string | undefined;
  readonly hostVariables: ReadonlySet<string>;
  readonly llm: LanguageModel;
  readonly settlement: CallSettlement;
}

/** A new call, before its sandbox exists. */
export function createCallState(init: CallInit): CallState {
  return {
    ...init,
    contextLength: measure(init.context),
    abort: new AbortController(),
    children: new Set(),
    bridgeRequests: new Set(),
    messages: [],
    workspace: undefined,
    iteration: 0,
    stepStartedAt: 0,
    pendingFinal: undefined,
    hostNotes: [],
    lastText: '',
    emptyStreak: 0,
    errorStreak: 0,
    earlierHistory: [],
    stepsInHistory: 0,
    done: false,
  };
}
