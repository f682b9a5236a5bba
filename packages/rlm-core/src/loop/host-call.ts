import type { BridgeRequest } from '../bridge/bridge-router.js';
import type { RunningCall } from './call-state.js';
import type { CallEvent } from './scheduler.js';

/** One host call from model code, as the function that serves it receives it. */
export interface HostCall {
  /** The call whose code made the request. Read it; never change it. */
  readonly call: RunningCall;
  /** The request: its arguments, and its abort signal (the request ended early). */
  readonly request: BridgeRequest;
  /**
   * One model call with the main model, through the run's gate and budget, stopped with the
   * request. Resolves with the model's text.
   */
  readonly generate: (system: string, prompt: string) => Promise<string>;
  /** Publishes an event of the calling call (the kernel adds its identity and time). */
  readonly emit: (event: CallEvent) => void;
  /**
   * A note for the model, shown after the output of the code block that made this call (a
   * warning about its result). Notes of a call still running when its block ends are dropped.
   */
  readonly note: (text: string) => void;
}

/**
 * Serves one host function (a core function or a feature's). It may return a value or a
 * promise, throw or reject: the bridge settles the request exactly once, and model code sees a
 * rejection as an error it can catch.
 */
export type HostCallHandler = (host: HostCall) => unknown;
