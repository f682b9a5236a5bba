import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ContextLoadError } from '../context-load-error.js';

/** Turns a Node file system error about `target` into a one-line {@link ContextLoadError}. */
export function fileSystemError(target: string, error: unknown): ContextLoadError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message =
    code === 'ENOENT'
      ? `${target} does not exist`
      : code === 'EACCES' || code === 'EPERM'
        ? `cannot read ${target}: permission denied`
        : code === 'ENOTDIR'
          ? `${target} does not exist (a parent is not a directory)`
          : code === 'ELOOP'
            ? `cannot read ${target}: too many levels of symbolic links`
            : code === 'EISDIR'
              ? `${target} is a directory; use --context-dir ${target} to load its files`
              : `cannot read ${target}: ${error instanceof Error ? error.message : String(error)}`;
  return new ContextLoadError(message, { path: target, cause: error });
}

/** `stat` that rejects with a {@link ContextLoadError} from {@link fileSystemError}. */
export async function statPath(target: string): Promise<Stats> {
  try {
    return await stat(target);
  } catch (error) {
    throw fileSystemError(target, error);
  }
}
