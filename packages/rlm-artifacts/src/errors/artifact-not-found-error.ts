import { RlmError } from '@rlm/core';

/** What was looked up and not found. */
export type ArtifactKind = 'blob' | 'record' | 'checkpoint';

/** A blob id, a record name (or `@name` reference) or a checkpoint is not in the store. */
export class ArtifactNotFoundError extends RlmError {
  readonly kind: ArtifactKind;
  /** The ids or names that were not found. */
  readonly names: readonly string[];

  constructor(message: string, options: { kind: ArtifactKind; names: readonly string[] }) {
    super(message);
    this.name = 'ArtifactNotFoundError';
    this.kind = options.kind;
    this.names = options.names;
  }

  static override isInstance(error: unknown): error is ArtifactNotFoundError {
    return RlmError.isInstance(error) && error.name === 'ArtifactNotFoundError';
  }
}
