import { RlmError } from '@rlm/core';

/** The backing Keyv store failed (or cannot enumerate keys), or the artifact store is closed. */
export class ArtifactStoreError extends RlmError {
  /** The Keyv key (with its namespace) being read or written, when one was. */
  readonly key: string | undefined;

  constructor(message: string, options: { key?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'ArtifactStoreError';
    this.key = options.key;
  }

  static override isInstance(error: unknown): error is ArtifactStoreError {
    return RlmError.isInstance(error) && error.name === 'ArtifactStoreError';
  }
}
