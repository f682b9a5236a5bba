import { hasErrorName, RlmError } from './rlm-error.js';

/** A price in `prices` is not a finite number >= 0, or a `maxCostUsd` budget lacks a price. */
export class ModelPriceError extends RlmError {
  /** The model id the problem is about. */
  readonly modelId: string;

  constructor(message: string, options: { modelId: string; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'ModelPriceError';
    this.modelId = options.modelId;
  }

  static override isInstance(error: unknown): error is ModelPriceError {
    return hasErrorName(error, 'ModelPriceError');
  }
}
