import { RlmError } from '@rlm/core';

/**
 * A queued job's run settings (an `rlm eval` variant's) are not ones a worker takes: an unknown
 * setting, a value of the wrong type or out of range. The job fails with this message; the
 * worker runs nothing for it.
 */
export class QueuedRunSettingsError extends RlmError {
  constructor(message: string) {
    super(message);
    this.name = 'QueuedRunSettingsError';
  }

  /** True for a `QueuedRunSettingsError` from any copy of this package. */
  static override isInstance(error: unknown): error is QueuedRunSettingsError {
    return RlmError.isInstance(error) && error.name === 'QueuedRunSettingsError';
  }
}
