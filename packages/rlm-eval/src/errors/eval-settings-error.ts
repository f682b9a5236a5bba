import { RlmError } from '@rlm/core';

/**
 * A setting of `@rlm/eval` is malformed: a tolerance, a confidence level, the lengths or the
 * count of a generated dataset. Thrown before anything is read, written or sent.
 */
export class EvalSettingsError extends RlmError {
  /** The setting at fault, e.g. `tolerance` or `lengths`. */
  readonly setting: string;

  constructor(message: string, options: { setting: string; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EvalSettingsError';
    this.setting = options.setting;
  }

  static override isInstance(error: unknown): error is EvalSettingsError {
    return RlmError.isInstance(error) && error.name === 'EvalSettingsError';
  }
}
