const marker = Symbol.for('@rlm/core/error');

/**
 * Base of every typed rlm error. `isInstance` checks work across duplicated package copies
 * (two installed versions of `@rlm/core`), where `instanceof` would not.
 */
export class RlmError extends Error {
  readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RlmError';
  }

  /** True for any rlm error, from any copy of this package. */
  static isInstance(error: unknown): error is RlmError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}

/** Builds an `isInstance` check for a subclass, keyed by its `name`. */
export function hasErrorName(error: unknown, name: string): boolean {
  return RlmError.isInstance(error) && error.name === name;
}
