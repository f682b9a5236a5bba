import { RlmError } from '@rlm/core';

/**
 * A store file stayed locked by another live process for longer than the lock timeout.
 * Nothing was written. Retry later, or remove the `.lock` file named in the message if no
 * rlm process is running.
 */
export class ToolStoreLockError extends RlmError {
  /** The lock file that could not be acquired. */
  readonly lockPath: string;

  constructor(lockPath: string, timeoutMs: number, options?: { cause?: unknown }) {
    super(
      `@rlm/toolstore: could not lock ${lockPath} within ${timeoutMs} ms; another rlm process holds it (delete the file if none is running)`,
      options,
    );
    this.name = 'ToolStoreLockError';
    this.lockPath = lockPath;
  }

  /** True for a `ToolStoreLockError` from any copy of this package. */
  static override isInstance(error: unknown): error is ToolStoreLockError {
    return RlmError.isInstance(error) && error.name === 'ToolStoreLockError';
  }
}
