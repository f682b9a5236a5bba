import type { ArtifactRef } from '../artifact-store.js';
import type { CallState, RunningCall, Workspace } from '../loop/call-state.js';
import type { CallSetup, ResumedStep } from '../loop/commands.js';
import type { HostCallHandler } from '../loop/host-call.js';

/** How a call ended. */
export type CallOutcome = 'answered' | 'failed';

/** A host function of a feature (see {@link HostCallHandler}). */
export type FeatureHostFunction = HostCallHandler;

/**
 * An optional part of the loop (artifacts and checkpoints, host tools, durable tools): what it
 * adds to the sandbox and the prompt, and the points of a call's life where it acts. The
 * kernel knows no feature by name; the names model code may not take come from the installed
 * features. Hooks never change a call: what must change comes back as data.
 */
export interface Feature {
  /** For messages, e.g. `artifacts`. */
  readonly name: string;
  /** Host functions model code can call, by their global name. */
  readonly hostFunctions: Readonly<Record<string, FeatureHostFunction>>;
  /**
   * Host functions only this feature's guest helpers hold (see
   * `SandboxOptions.internalHostFunctions`): model code cannot name them.
   */
  readonly internalHostFunctions?: Readonly<Record<string, FeatureHostFunction>>;
  /** Functions written in JavaScript that the sandbox installs as globals, by name. */
  readonly guestHelpers?: Readonly<Record<string, string>>;
  /** Lines the system prompt's list of what the REPL has gains. */
  readonly replHelp?: readonly string[];
  /** Text appended to the system prompt at every step ('' for none); never rejects. */
  promptSection?(): Promise<string>;
  /**
   * Once a call's sandbox is ready, before its first step: may restore a checkpoint into the
   * sandbox and return what the call must take from it.
   */
  beforeFirstStep?(
    call: CallState,
    workspace: Workspace,
    setup: CallSetup,
  ): Promise<ResumedStep | undefined>;
  /**
   * Before the loop uses the sandbox (runs a step's code, reads an answer's variable): work on
   * the sandbox that must finish first. Never rejects.
   */
  beforeSandboxUse?(call: RunningCall): Promise<void>;
  /** Once the sandbox is free, before a step's code runs: a note for the model, if any. */
  takeNote?(call: RunningCall): string | undefined;
  /** After a step whose code ran, once the variables are synced (a checkpoint). */
  afterExecutedStep?(call: RunningCall): void;
  /** When a call's answer is accepted: may store it, returning its reference. */
  onFinal?(call: CallState, answer: unknown): Promise<ArtifactRef | undefined>;
  /** Work that must finish before the call's sandbox is disposed, if any. Never rejects. */
  beforeDispose?(call: CallState): Promise<void> | undefined;
  /**
   * The call has ended (`answered` or `failed`): work that must finish before its promise
   * settles, if any. Never rejects.
   */
  beforeSettle?(call: CallState, outcome: CallOutcome): Promise<void> | undefined;
  /** Work still running after the run settled (a checkpoint write). Never rejects. */
  pendingWrites?(): Promise<void>;
}
