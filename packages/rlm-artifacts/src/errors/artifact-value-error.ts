import { RlmError } from '@rlm/core';

/**
 * An input cannot be stored or read as asked: a value that is not JSON-serializable, text with
 * unpaired surrogates, an invalid record, or binary content loaded as text.
 */
export class ArtifactValueError extends RlmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ArtifactValueError';
  }

  static override isInstance(error: unknown): error is ArtifactValueError {
    return RlmError.isInstance(error) && error.name === 'ArtifactValueError';
  }
}
