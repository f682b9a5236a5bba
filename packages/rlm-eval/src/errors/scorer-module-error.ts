import { RlmError } from '@rlm/core';

/** A custom scorer module could not be loaded, or exports no scorer function. */
export class ScorerModuleError extends RlmError {
  /** The module's path as given. */
  readonly file: string;

  constructor(message: string, options: { file: string; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ScorerModuleError';
    this.file = options.file;
  }

  static override isInstance(error: unknown): error is ScorerModuleError {
    return RlmError.isInstance(error) && error.name === 'ScorerModuleError';
  }
}
