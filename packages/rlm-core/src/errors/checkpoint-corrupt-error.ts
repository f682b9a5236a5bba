import { hasErrorName, RlmError } from './rlm-error.js';

/**
 * A checkpoint a resume loaded does not hold together: its counts, lengths or names disagree
 * with what it holds (a damaged or tampered store). Nothing of it was used.
 */
export class CheckpointCorruptError extends RlmError {
  /** The run whose checkpoint it is (see `runKey`). */
  readonly runKey: string;
  /** The checkpoint's id. */
  readonly checkpointId: string;

  constructor(message: string, options: { runKey: string; checkpointId: string; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'CheckpointCorruptError';
    this.runKey = options.runKey;
    this.checkpointId = options.checkpointId;
  }

  static override isInstance(error: unknown): error is CheckpointCorruptError {
    return hasErrorName(error, 'CheckpointCorruptError');
  }
}
