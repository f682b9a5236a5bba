import { stat } from 'node:fs/promises';
import { type ContextPathLoader, ContextTooLargeError, ServedRequestError } from '@rlm/server';
import { ContextLoadError } from '../../context-load-error.js';
import type { ContextRoot } from '../../context/context-root.js';
import { loadContext } from '../../context/load-context.js';

/**
 * How `rlm serve` and `rlm mcp` read a path a request names under `--context-root`, as `rlm`
 * reads `--context` and `--context-dir`: a `.json` file parsed (one that does not parse, as
 * text), any other file as text, a directory as an array of `{ path, text }` items, one per file
 * (`{ path, data }` for parsed JSON; `.gitignore`, hidden files, `node_modules` and binary files
 * left out). Confined to `root` by the rule of `rlm batch` and `rlm worker` (see
 * {@link ContextRoot}): symbolic links resolved, the path stays under the root and out of
 * `/proc`, `/sys` and `/dev`, and links inside a directory that lead out of the root are left
 * out. A FIFO or other special file is refused (reading it could wait forever).
 */
export function contextPathLoader(root: ContextRoot): ContextPathLoader {
  return async (absolutePath, { maxBytes }) => {
    const stats = await stat(absolutePath);
    if (!stats.isFile() && !stats.isDirectory()) {
      throw new ServedRequestError(
        'the path is neither a regular file nor a directory; name files or directories only',
        { status: 400, code: 'context_path_not_file' },
      );
    }
    try {
      const loaded = await loadContext({
        ...(stats.isDirectory() ? { directory: absolutePath } : { file: absolutePath }),
        root,
        maxBytes,
        maxBytesFlag: '--max-context-bytes',
      });
      return { value: loaded?.value, bytes: loaded?.bytes ?? 0 };
    } catch (error) {
      if (ContextLoadError.isInstance(error) && error.tooLarge) {
        throw new ContextTooLargeError(
          `${error.message.replace(/; raise it with .*$/, '')} of this server; name fewer or smaller files`,
          { maxBytes, cause: error },
        );
      }
      throw error;
    }
  };
}
