import { RlmError } from '@rlm/core';

/**
 * A stored value does not decode, fails its schema, or no longer matches its hash: written by
 * something else, by an incompatible version, or damaged.
 */
export class ArtifactCorruptError extends RlmError {
  /** The Keyv key (with its namespace) holding the bad value. */
  readonly key: string;

  constructor(message: string, options: { key: string; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'ArtifactCorruptError';
    this.key = options.key;
  }

  static override isInstance(error: unknown): error is ArtifactCorruptError {
    return RlmError.isInstance(error) && error.name === 'ArtifactCorruptError';
  }
}
