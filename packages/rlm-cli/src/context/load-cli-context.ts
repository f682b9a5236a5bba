import { formatJsonReadAsText } from './format-json-read-as-text.js';
import { formatSkippedBinaryFiles } from './format-skipped-binary-files.js';
import { type LoadedContext, loadContext } from './load-context.js';
import type { CliOptions } from '../run-options/run-options.js';

/**
 * Loads `--context` or `--context-dir` as the command line selects it (`--strict` included), and
 * reports on `stderr` the binary files a directory skipped and the `.json` files read as text.
 * `undefined` without either flag; rejects with `ContextLoadError`. `utf8Text` is `loadContext`'s:
 * a text file as a `Utf8Text`.
 */
export async function loadCliContext(
  cli: CliOptions,
  stderr: NodeJS.WritableStream,
  options: { readonly utf8Text?: boolean } = {},
): Promise<LoadedContext | undefined> {
  const context = await loadContext({
    file: cli.contextFile,
    directory: cli.contextDirectory,
    utf8Text: options.utf8Text ?? false,
    concat: cli.concat,
    ...cli.contextSelection,
    maxBytes: cli.maxContextBytes,
  });
  if (context && context.binaryFiles.length > 0) {
    stderr.write(formatSkippedBinaryFiles(context.binaryFiles));
  }
  if (context) stderr.write(formatJsonReadAsText(context.jsonReadAsText));
  return context;
}
