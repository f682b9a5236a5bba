import { RlmError } from '@rlm/core';

/**
 * A request's context is over the server's limit of bytes. A context loader throws it (see
 * `ContextPathLoader`) so that the request is answered 413 (`context_too_large`) instead of 400.
 */
export class ContextTooLargeError extends RlmError {
  /** The limit, in bytes. */
  readonly maxBytes: number;

  constructor(message: string, options: { maxBytes: number; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ContextTooLargeError';
    this.maxBytes = options.maxBytes;
  }

  /** True for a `ContextTooLargeError` from any copy of this package. */
  static override isInstance(error: unknown): error is ContextTooLargeError {
    return RlmError.isInstance(error) && error.name === 'ContextTooLargeError';
  }
}
