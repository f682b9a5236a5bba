import { RlmError } from '@rlm/core';

/** A scorer was named that is neither built in nor a module path. */
export class UnknownScorerError extends RlmError {
  /** The name asked for. */
  readonly scorer: string;

  constructor(message: string, options: { scorer: string; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UnknownScorerError';
    this.scorer = options.scorer;
  }

  static override isInstance(error: unknown): error is UnknownScorerError {
    return RlmError.isInstance(error) && error.name === 'UnknownScorerError';
  }
}
