import { formatErrorLine } from '@rlm/core';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ContextTooLargeError } from './errors/context-too-large-error.js';
import { ServedRequestError } from './errors/served-request-error.js';
import { ServerSettingsError } from './errors/server-settings-error.js';
import type { ServedFile } from './served-context.js';

/** What a {@link ContextPathLoader} made of one path. */
export interface LoadedContextPath {
  /** The value: a string, parsed JSON, an array of a directory's files... */
  readonly value: unknown;
  /** Bytes read, counted against the request's limit. */
  readonly bytes: number;
}

/**
 * Reads one path under the context root, already checked to be inside it (symbolic links
 * resolved). Throws {@link ContextTooLargeError} past `maxBytes` (answered 413) and
 * {@link ServedRequestError} for a path it cannot read (answered as it says); any other error is
 * answered 400 with its message.
 */
export type ContextPathLoader = (
  absolutePath: string,
  options: { readonly maxBytes: number; readonly signal: AbortSignal },
) => Promise<LoadedContextPath>;

/** The directory whose files requests may name as context. */
export interface ContextRootSettings {
  /** The root; requests name paths relative to it, and none outside it is read. */
  readonly directory: string;
  /** Reads a path; default {@link readContextTextFile} (one UTF-8 text file). */
  readonly load?: ContextPathLoader;
  /** Bytes read for one request across its paths. Default 256 MiB. */
  readonly maxBytes?: number;
}

/** Bytes one request may read under the context root unless set. */
export const defaultContextMaxBytes = 256 * 1024 * 1024;

/**
 * The default {@link ContextPathLoader}: one regular file, decoded as UTF-8 text. A directory
 * or a binary file is a 400 naming it.
 */
export const readContextTextFile: ContextPathLoader = async (absolutePath, { maxBytes }) => {
  const stats = await stat(absolutePath);
  if (!stats.isFile()) {
    throw new ServedRequestError(
      `${path.basename(absolutePath)} is not a regular file; this server reads files only, so name each file`,
      { status: 400, code: 'context_path_not_file' },
    );
  }
  if (stats.size > maxBytes) throw tooLarge(maxBytes);
  const bytes = await readFile(absolutePath);
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  try {
    return { value: new TextDecoder('utf-8', { fatal: true }).decode(bytes), bytes: bytes.length };
  } catch (error) {
    throw new ServedRequestError(
      `${path.basename(absolutePath)} is not UTF-8 text; name text files only`,
      { status: 400, code: 'context_path_binary', cause: error },
    );
  }
};

function tooLarge(maxBytes: number): ContextTooLargeError {
  return new ContextTooLargeError(
    `the context files are over this server's limit of ${maxBytes} bytes; name fewer or smaller files`,
    { maxBytes },
  );
}

/**
 * The context root of a server: checks that each path a request names lies inside it (after
 * resolving `..` and symbolic links) and reads it with the loader, within the byte limit.
 */
export class ContextRoot {
  readonly #directory: string;
  readonly #load: ContextPathLoader;
  readonly #maxBytes: number;

  private constructor(directory: string, load: ContextPathLoader, maxBytes: number) {
    this.#directory = directory;
    this.#load = load;
    this.#maxBytes = maxBytes;
  }

  /**
   * Opens the root: resolves its real path.
   *
   * @throws {ServerSettingsError} when it is not a directory, or `maxBytes` is not a positive number.
   */
  static async open(settings: ContextRootSettings): Promise<ContextRoot> {
    const maxBytes = settings.maxBytes ?? defaultContextMaxBytes;
    if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
      throw new ServerSettingsError(
        `@rlm/server: contextRoot.maxBytes must be a positive whole number of bytes (got ${String(maxBytes)})`,
      );
    }
    let directory: string;
    try {
      directory = await realpath(settings.directory);
      if (!(await stat(directory)).isDirectory()) throw new Error('not a directory');
    } catch (error) {
      throw new ServerSettingsError(
        `@rlm/server: the context root ${settings.directory} is not a directory (${error instanceof Error ? error.message : String(error)}); name an existing directory`,
        { cause: error },
      );
    }
    return new ContextRoot(directory, settings.load ?? readContextTextFile, maxBytes);
  }

  /** The root's real path. */
  get directory(): string {
    return this.#directory;
  }

  /**
   * Reads the paths a request names (`paths` as it sent them: it must be an array of
   * non-empty strings), in order, each as a file named by its path relative to the root.
   *
   * @throws {ServedRequestError} 400 for a malformed list, a path outside the root or missing,
   * or one the loader cannot read; 413 past the byte limit.
   */
  async load(paths: unknown, param: string, signal: AbortSignal): Promise<ServedFile[]> {
    if (!Array.isArray(paths) || paths.length === 0) {
      throw new ServedRequestError(
        `${param} must be a non-empty array of paths relative to the context root`,
        { status: 400, code: 'invalid_context_paths', param },
      );
    }
    const files: ServedFile[] = [];
    let used = 0;
    for (const [index, requested] of paths.entries()) {
      signal.throwIfAborted();
      const where = `${param}[${index}]`;
      const absolute = await this.resolve(requested, where);
      let loaded: LoadedContextPath;
      try {
        loaded = await this.#load(absolute, { maxBytes: this.#maxBytes - used, signal });
      } catch (error) {
        throw this.#asRequestError(error, where);
      }
      used += loaded.bytes;
      if (used > this.#maxBytes) throw this.#asRequestError(tooLarge(this.#maxBytes), where);
      files.push({ name: this.#relative(absolute), value: loaded.value });
    }
    return files;
  }

  /**
   * The real path of `requested` (relative to the root, or absolute), when it exists inside
   * the root.
   *
   * @throws {ServedRequestError} 400: `invalid_context_path`, `context_path_outside_root`,
   * `context_path_not_found`.
   */
  async resolve(requested: unknown, param: string): Promise<string> {
    if (typeof requested !== 'string' || requested.trim() === '' || requested.includes('\0')) {
      throw new ServedRequestError(
        `${param} must be a non-empty path relative to the context root (got ${JSON.stringify(requested) ?? typeof requested})`,
        { status: 400, code: 'invalid_context_path', param },
      );
    }
    const outside = () =>
      new ServedRequestError(
        `${param} ${JSON.stringify(requested)} is outside the context root; name a path inside it`,
        { status: 400, code: 'context_path_outside_root', param },
      );
    // Lexically first, so that nothing is learnt of the files outside.
    const candidate = path.resolve(this.#directory, requested);
    if (!this.#contains(candidate)) throw outside();
    let real: string;
    try {
      real = await realpath(candidate);
    } catch (error) {
      throw new ServedRequestError(
        `${param} ${JSON.stringify(requested)} does not exist under the context root`,
        { status: 400, code: 'context_path_not_found', param, cause: error },
      );
    }
    if (!this.#contains(real)) throw outside();
    return real;
  }

  #contains(absolute: string): boolean {
    const relative = path.relative(this.#directory, absolute);
    return relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
  }

  /** The loader's error as the request's; paths under the root are shown relative to it. */
  #asRequestError(error: unknown, param: string): ServedRequestError {
    if (ServedRequestError.isInstance(error)) return error;
    if (ContextTooLargeError.isInstance(error)) {
      return new ServedRequestError(error.message, {
        status: 413,
        code: 'context_too_large',
        param,
        cause: error,
      });
    }
    const message = formatErrorLine(error).replaceAll(`${this.#directory}${path.sep}`, '');
    return new ServedRequestError(`${param} cannot be read: ${message}`, {
      status: 400,
      code: 'context_unreadable',
      param,
      cause: error,
    });
  }

  #relative(absolute: string): string {
    return path.relative(this.#directory, absolute).split(path.sep).join('/') || '.';
  }
}
