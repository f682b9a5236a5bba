import { RlmError } from '@rlm/core';

/**
 * A record name is already taken by different content (records are immutable), or, for a blob,
 * a different content already has the same 12-character id.
 */
export class ArtifactConflictError extends RlmError {
  /** The record name or blob id. */
  readonly key: string;

  constructor(message: string, options: { key: string }) {
    super(message);
    this.name = 'ArtifactConflictError';
    this.key = options.key;
  }

  static override isInstance(error: unknown): error is ArtifactConflictError {
    return RlmError.isInstance(error) && error.name === 'ArtifactConflictError';
  }
}
