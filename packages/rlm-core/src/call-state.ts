import type { ArtifactRef } from './artifact-store.js';
import type { FinalSource } from './events.js';
import type { Message, TextPart, ToolCallPart, ToolResultPart } from './language-model.js';
import type { PendingFinal } from './loop/final-answer.js';
import type { Sandbox } from './sandbox.js';
import type { VariableSpace } from './variable-space.js';

/** How a call's promise settles. */
export interface CallSettlement {
  resolve(final: {
    answer: unknown;
    source: FinalSource;
    iterations: number;
    artifact?: ArtifactRef;
  }): void;
  reject(error: unknown): void;
}

/** The mutable state of one RLM call (the root query or a `sub_rlm` child). */
export interface CallState {
  readonly id: string;
  readonly depth: number;
  readonly query: string;
  readonly context: unknown;
  readonly contextLength: number;
  readonly parentId: string | undefined;
  /** Aborts this call's model requests and code executions. */
  readonly abort: AbortController;
  readonly settlement: CallSettlement;
  /** Child call ids still running. */
  readonly children: Set<string>;
  /** Bridge request ids still pending. */
  readonly bridgeRequests: Set<string>;
  /** The conversation sent to the model. */
  readonly messages: Message[];
  sandbox: Sandbox | undefined;
  /** Host-side view of the sandbox's variables; set once the sandbox is ready. */
  variables: VariableSpace | undefined;
  /** Whether the call disposes its sandbox when it ends (false for the persistent root). */
  ownsSandbox: boolean;
  iteration: number;
  stepStartedAt: number;
  pendingFinal: PendingFinal | undefined;
  /** The last non-empty model text: the partial answer when the call fails. */
  lastText: string;
  /** Empty model responses in a row (stall detection). */
  emptyStreak: number;
  done: boolean;
}

/** Appends a message, merging it into the previous one when the roles match. */
export function appendMessage(messages: Message[], message: Message): void {
  const previous = messages.at(-1);
  if (previous?.role !== message.role) {
    messages.push(message);
    return;
  }
  const merged = [...toParts(previous.content), ...toParts(message.content)];
  messages[messages.length - 1] = { role: message.role, content: merged } as Message;
}

function toParts(
  content: Message['content'],
): readonly (TextPart | ToolCallPart | ToolResultPart)[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}
