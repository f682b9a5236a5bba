import { RlmError } from '@rlm/core';

/** A stored trace or run summary does not decode as a trace of this schema. */
export class TraceCorruptError extends RlmError {
  readonly runId: string;

  constructor(message: string, options: { runId: string; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TraceCorruptError';
    this.runId = options.runId;
  }

  static override isInstance(error: unknown): error is TraceCorruptError {
    return RlmError.isInstance(error) && error.name === 'TraceCorruptError';
  }
}
