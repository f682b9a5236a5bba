import { RlmError } from '@rlm/core';

/**
 * A role or method name is not an identifier (`^[A-Za-z_][A-Za-z0-9_]{0,63}$`, and not a
 * Windows device name such as `con` or `nul`). Names become path segments of the store, so
 * anything else is refused before any file is touched.
 */
export class InvalidToolNameError extends RlmError {
  /** Which name was refused. */
  readonly kind: 'role' | 'method';
  /** The refused value, as given. */
  readonly value: unknown;

  constructor(kind: 'role' | 'method', value: unknown) {
    const shown = typeof value === 'string' ? JSON.stringify(value) : typeof value;
    super(
      `@rlm/toolstore: invalid ${kind} name ${shown}; use a letter or underscore followed by up to 63 letters, digits or underscores`,
    );
    this.name = 'InvalidToolNameError';
    this.kind = kind;
    this.value = value;
  }

  /** True for an `InvalidToolNameError` from any copy of this package. */
  static override isInstance(error: unknown): error is InvalidToolNameError {
    return RlmError.isInstance(error) && error.name === 'InvalidToolNameError';
  }
}
