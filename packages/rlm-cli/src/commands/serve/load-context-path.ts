import { stat } from 'node:fs/promises';
import { type ContextPathLoader, ContextTooLargeError, ServedRequestError } from '@rlm/server';
import { ContextLoadError } from '../../context-load-error.js';
import { loadContext } from '../../load-context.js';

/**
 * How `rlm serve` and `rlm mcp` read a path a request names under `--context-root`, as `rlm`
 * reads `--context` and `--context-dir`: a `.json` file parsed, any other file as text, a
 * directory as an array of its files (`.gitignore`, hidden files, `node_modules` and binary files
 * left out). A FIFO or other special file is refused (reading it could wait forever).
 */
export const loadContextPath: ContextPathLoader = async (absolutePath, { maxBytes }) => {
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
