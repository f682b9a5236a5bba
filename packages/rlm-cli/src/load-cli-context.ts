import { formatSkippedBinaryFiles } from './format-skipped-binary-files.js';
import { type LoadedContext, loadContext } from './load-context.js';
import type { CliOptions } from './parse-arguments.js';

/**
 * Loads `--context` or `--context-dir` as the command line selects it, and reports on `stderr`
 * the binary files a directory skipped. `undefined` without either flag; rejects with
 * `ContextLoadError`.
 */
export async function loadCliContext(
  cli: CliOptions,
  stderr: NodeJS.WritableStream,
): Promise<LoadedContext | undefined> {
  const context = await loadContext({
    file: cli.contextFile,
    directory: cli.contextDirectory,
    concat: cli.concat,
    ...cli.contextSelection,
    maxBytes: cli.maxContextBytes,
  });
  if (context && context.binaryFiles.length > 0) {
    stderr.write(formatSkippedBinaryFiles(context.binaryFiles));
  }
  return context;
}
