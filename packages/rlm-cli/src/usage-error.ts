import { RlmError } from '@rlm/core';

/**
 * The command line cannot run as given: an unknown flag, a bad number, a malformed model
 * spec, a missing API key. The CLI prints the message as one line and exits with code 2
 * before any file is read or any model is called.
 */
export class UsageError extends RlmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UsageError';
  }

  /** True for a `UsageError` from any copy of this package. */
  static override isInstance(error: unknown): error is UsageError {
    return RlmError.isInstance(error) && error.name === 'UsageError';
  }
}
