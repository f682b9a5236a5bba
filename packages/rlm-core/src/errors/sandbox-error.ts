import { hasErrorName, RlmError } from './rlm-error.js';

/** A sandbox could not start, was disposed, or could not read or write a variable. */
export class SandboxError extends RlmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SandboxError';
  }

  static override isInstance(error: unknown): error is SandboxError {
    return hasErrorName(error, 'SandboxError');
  }
}
