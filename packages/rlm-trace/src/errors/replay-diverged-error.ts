import { RlmError } from '@rlm/core';

/**
 * A replayed run asked the replay model something the recording has no answer for: the run
 * took another path than the recorded one (its code, its context or the version changed).
 */
export class ReplayDivergedError extends RlmError {
  /** The replay's model request that diverged, from 1, in the order they were asked. */
  readonly request: number;

  constructor(message: string, options: { request: number; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ReplayDivergedError';
    this.request = options.request;
  }

  static override isInstance(error: unknown): error is ReplayDivergedError {
    return RlmError.isInstance(error) && error.name === 'ReplayDivergedError';
  }
}
