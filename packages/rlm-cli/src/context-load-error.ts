import { RlmError } from '@rlm/core';

/**
 * The context could not be loaded: a missing path, a directory where a file was expected (or
 * the reverse), a directory with nothing to load, an unreadable file or `.gitignore`, invalid
 * UTF-8 in a `--context` file, a binary file under `--strict`, invalid JSON, or a context over
 * the size limit. The CLI prints the message as one line and exits with code 2
 * before any model is called.
 */
export class ContextLoadError extends RlmError {
  /** The file or directory at fault. */
  readonly path: string;
  /** Whether the context is over the size limit (rather than unreadable). */
  readonly tooLarge: boolean;

  constructor(message: string, options: { path: string; tooLarge?: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'ContextLoadError';
    this.path = options.path;
    this.tooLarge = options.tooLarge ?? false;
  }

  /** True for a `ContextLoadError` from any copy of this package. */
  static override isInstance(error: unknown): error is ContextLoadError {
    return RlmError.isInstance(error) && error.name === 'ContextLoadError';
  }
}
