import { RlmError } from '@rlm/core';

/**
 * The server cannot start as configured: no model to serve, a limit that is not a positive
 * number, a non-loopback host without a bearer token, a context root that is not a directory.
 * Thrown before anything listens.
 */
export class ServerSettingsError extends RlmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ServerSettingsError';
  }

  /** True for a `ServerSettingsError` from any copy of this package. */
  static override isInstance(error: unknown): error is ServerSettingsError {
    return RlmError.isInstance(error) && error.name === 'ServerSettingsError';
  }
}
