import type { ArtifactRef } from '../artifact-store.js';
import type { RunningCall, CallState, Workspace } from '../loop/call-state.js';
import type { CallSetup, ResumedStep } from '../loop/commands.js';
import type { HostCall, HostCallHandler } from '../loop/host-call.js';
import type { CallEvent } from '../loop/call-event.js';

// The loop's public face: what a feature may know of a call. Features import these from here,
// never from `loop/` itself.
export type { CallEvent, CallSetup, CallState, HostCall, ResumedStep, RunningCall, Workspace };

/** How a call ended. */
export type CallOutcome = 'answered' | 'failed';

/**
 * A host function of a feature: receives the {@link HostCall} (the calling call, the request's
 * arguments and signal, `generate`, `emit`, `note`) and returns a value or a promise. A throw
 * or a rejection reaches model code as an `Error` carrying only the message.
 */
export type FeatureHostFunction = HostCallHandler;

/**
 * An optional part of the loop: what it adds to the sandbox and the prompt, and the points of a
 * call's life where it acts. The kernel knows no feature by name; the names model code may not
 * take come from the installed features. A hook reads the call it is given and never changes
 * it: what must change comes back as data. Every member but `name` and `hostFunctions` is
 * optional, and every hook that returns a promise must settle (a hook that never settles holds
 * the call open).
 *
 * Built-in features: artifacts and checkpoints, durable tools, host tools. Install your own
 * with `createRLM({ features: [myFeature] })`: each is installed in every run, after the
 * built-in ones, in the order given.
 */
export interface Feature {
  /** For messages, e.g. `artifacts`. */
  readonly name: string;
  /**
   * Host functions model code can call, by their global name (a JavaScript identifier). A
   * name the core or another installed feature already takes is refused with a `TypeError`
   * when the run starts.
   */
  readonly hostFunctions: Readonly<Record<string, FeatureHostFunction>>;
  /**
   * Host functions only this feature's guest helpers hold (see
   * `SandboxOptions.internalHostFunctions`): model code cannot name them.
   */
  readonly internalHostFunctions?: Readonly<Record<string, FeatureHostFunction>>;
  /**
   * Functions written in JavaScript that the sandbox installs as globals, by name: the source
   * of an expression that evaluates to the function, run inside the sandbox.
   */
  readonly guestHelpers?: Readonly<Record<string, string>>;
  /** Lines added to the system prompt's list of what the REPL has (markdown). */
  readonly replHelp?: readonly string[];
  /**
   * Text appended to the system prompt, read afresh before every model request ('' for none).
   * Must never reject: a failure to read should give ''.
   */
  promptSection?(): Promise<string>;
  /**
   * Once a call's sandbox is ready and its first variables set, before its first step: may
   * restore earlier work into `workspace` and return where the call's conversation starts
   * instead of the fresh start. The first feature that returns a step decides. A rejection
   * fails the call.
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
  /**
   * Once the sandbox is free, before a step's code runs: a note for the model, shown with that
   * step's outputs, or `undefined` for none. Taken once: return each note one time.
   */
  takeNote?(call: RunningCall): string | undefined;
  /** After a step whose code ran, once the variables are synced (e.g. to take a checkpoint). */
  afterExecutedStep?(call: RunningCall): void;
  /**
   * When a call's answer is accepted, before the call settles: may store it and return its
   * reference (the result's `artifact`). The first feature that returns one decides.
   */
  onFinal?(call: CallState, answer: unknown): Promise<ArtifactRef | undefined>;
  /** Work that must finish before the call's sandbox is disposed, if any. Never rejects. */
  beforeDispose?(call: CallState): Promise<void> | undefined;
  /**
   * The call has ended (`answered` or `failed`): work that must finish before its promise
   * settles, if any. Never rejects.
   */
  beforeSettle?(call: CallState, outcome: CallOutcome): Promise<void> | undefined;
  /**
   * Work still running after the run settled (a checkpoint write); `RLM.dispose()` waits for
   * it. Never rejects.
   */
  pendingWrites?(): Promise<void>;
}
