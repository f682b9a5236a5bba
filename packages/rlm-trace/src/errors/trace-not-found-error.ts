import { RlmError } from '@rlm/core';

/** No trace is stored under the run id asked for (or the store has no runs at all). */
export class TraceNotFoundError extends RlmError {
  /** The run id looked up; `undefined` when the latest run was asked for. */
  readonly runId: string | undefined;

  constructor(message: string, options: { runId: string | undefined; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TraceNotFoundError';
    this.runId = options.runId;
  }

  static override isInstance(error: unknown): error is TraceNotFoundError {
    return RlmError.isInstance(error) && error.name === 'TraceNotFoundError';
  }
}
