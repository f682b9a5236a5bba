import { RlmError } from '@rlm/core';

/**
 * A job's `store()` would pass the bytes the whole batch may store
 * (`--max-batch-artifact-bytes`). Model code gets the message; it is the job's doing, not a
 * failure of the store.
 */
export class BatchArtifactQuotaError extends RlmError {
  constructor(message: string) {
    super(message);
    this.name = 'BatchArtifactQuotaError';
  }

  /** True for a `BatchArtifactQuotaError` from any copy of this package. */
  static override isInstance(error: unknown): error is BatchArtifactQuotaError {
    return RlmError.isInstance(error) && error.name === 'BatchArtifactQuotaError';
  }
}
