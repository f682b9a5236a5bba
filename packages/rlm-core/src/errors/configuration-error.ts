import { hasErrorName, RlmError } from './rlm-error.js';

/**
 * `createRLM` settings that contradict each other (a deprecated flat name and its grouped path set
 * to different values), or a setting given a value it cannot take (`artifacts.runNamespace`).
 */
export class ConfigurationError extends RlmError {
  /** The grouped path of the setting the problem is about, e.g. `artifacts.checkpoints.maxLagMs`. */
  readonly setting: string;

  constructor(message: string, options: { setting: string; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'ConfigurationError';
    this.setting = options.setting;
  }

  static override isInstance(error: unknown): error is ConfigurationError {
    return hasErrorName(error, 'ConfigurationError');
  }
}
