import { RlmError } from '@rlm/core';

/**
 * A maintenance operation would overwrite live data: restoring an archived tool whose role
 * is in use again. Archive or rename the live tool first.
 */
export class ToolConflictError extends RlmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`@rlm/toolstore: ${message}`, options);
    this.name = 'ToolConflictError';
  }

  /** True for a `ToolConflictError` from any copy of this package. */
  static override isInstance(error: unknown): error is ToolConflictError {
    return RlmError.isInstance(error) && error.name === 'ToolConflictError';
  }
}
