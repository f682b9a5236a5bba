import { RlmError } from '@rlm/core';

/**
 * A tool contract cannot be fingerprinted or stored: it holds something that is not plain
 * JSON (a function, a class instance, a bigint, a non-finite number, a cycle).
 */
export class InvalidToolContractError extends RlmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(
      `@rlm/toolstore: invalid tool contract: ${message}; contracts must be plain JSON`,
      options,
    );
    this.name = 'InvalidToolContractError';
  }

  /** True for an `InvalidToolContractError` from any copy of this package. */
  static override isInstance(error: unknown): error is InvalidToolContractError {
    return RlmError.isInstance(error) && error.name === 'InvalidToolContractError';
  }
}
