import { RlmError } from '@rlm/core';

/** A maintenance operation named a tool, method or archive that the store does not hold. */
export class ToolNotFoundError extends RlmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`@rlm/toolstore: ${message}`, options);
    this.name = 'ToolNotFoundError';
  }

  /** True for a `ToolNotFoundError` from any copy of this package. */
  static override isInstance(error: unknown): error is ToolNotFoundError {
    return RlmError.isInstance(error) && error.name === 'ToolNotFoundError';
  }
}
