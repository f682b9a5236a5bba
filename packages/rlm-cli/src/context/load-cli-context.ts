import { formatJsonReadAsText } from './format-json-read-as-text.js';
import { formatSkippedBinaryFiles } from './format-skipped-binary-files.js';
import { type LoadedContext, loadContext } from './load-context.js';

/** The context the command line chose: its flags, validated. */
export interface CliContextChoice {
  /** `--context`: one file. */
  readonly contextFile: string | undefined;
  /** `--context-dir`: a directory. */
  readonly contextDirectory: string | undefined;
  /** `--concat`: join the directory's files into one string. */
  readonly concat: boolean;
  /**
   * How `--context-dir` picks its files: `--include` and `--exclude` globs (repeatable),
   * `--no-gitignore`, `--no-default-excludes` (read hidden entries and `node_modules`),
   * `--strict` (a binary file, or a `.json` file that does not parse, is an error instead of
   * being skipped or read as text; also with `--context`).
   */
  readonly contextSelection: {
    readonly include: readonly string[];
    readonly exclude: readonly string[];
    readonly gitignore: boolean;
    readonly defaultExcludes: boolean;
    readonly strict: boolean;
  };
  /** `--max-context-bytes`, in bytes. */
  readonly maxContextBytes: number;
}

/**
 * Loads `--context` or `--context-dir` as the command line selects it (`--strict` included), and
 * reports on `stderr` the binary files a directory skipped and the `.json` files read as text.
 * `undefined` without either flag; rejects with `ContextLoadError`. `utf8Text` is `loadContext`'s:
 * a text file as a `Utf8Text`.
 */
export async function loadCliContext(
  cli: CliContextChoice,
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
