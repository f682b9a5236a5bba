import { hasErrorName, RlmError } from './rlm-error.js';

/** The run was aborted through its `AbortSignal`. */
export class AbortedError extends RlmError {
  constructor(message = '@rlm/core: the run was aborted', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AbortedError';
  }

  static override isInstance(error: unknown): error is AbortedError {
    return hasErrorName(error, 'AbortedError');
  }
}
