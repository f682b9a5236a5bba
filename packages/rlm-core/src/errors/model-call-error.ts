import { hasErrorName, RlmError } from './rlm-error.js';

/** A model call failed and will not be retried (or retries ran out). */
export class ModelCallError extends RlmError {
  /** HTTP status, when the provider answered. */
  readonly status: number | undefined;
  /** Whether the fault was transient (rate limit, overload, network) and retries ran out. */
  readonly retryable: boolean;

  constructor(
    message: string,
    options: { status?: number; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ModelCallError';
    this.status = options.status;
    this.retryable = options.retryable ?? false;
  }

  static override isInstance(error: unknown): error is ModelCallError {
    return hasErrorName(error, 'ModelCallError');
  }
}
