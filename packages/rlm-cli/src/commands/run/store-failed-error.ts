import { RlmError } from '@rlm/core';

/**
 * The artifact store failed so that a run could not keep its promised state (with
 * `--store-errors fail`, the default). The CLI prints the message as one line and exits 3.
 */
export class StoreFailedError extends RlmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreFailedError';
  }

  /** True for a `StoreFailedError` from any copy of this package. */
  static override isInstance(error: unknown): error is StoreFailedError {
    return RlmError.isInstance(error) && error.name === 'StoreFailedError';
  }
}
