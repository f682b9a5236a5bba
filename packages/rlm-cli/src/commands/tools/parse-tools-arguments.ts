import { onlyFlagBefore } from '../../parse-command-arguments.js';
import { parseRunFlags } from '../../run-options/parse-run-options.js';
import { defaultStorePath } from '../../run-options/run-options.js';
import { resolveToolStore, type ToolStoreChoice } from '../../store/resolve-tool-store.js';

/** `rlm [--toolstore <dir>] tools ...`: the words after `tools` and the store they work on. */
export interface ToolsArguments {
  /** The words after `tools`, parsed by `@rlm/toolstore`'s command. */
  readonly argv: readonly string[];
  /** The store `rlm tools` works on: the one a run here would use. */
  readonly toolStore: ToolStoreChoice;
}

/**
 * Recognises the maintenance command `rlm tools`: `tools` is the first positional and only
 * `--toolstore <dir>` comes before it. Returns `undefined` for any other command line (a query
 * may hold the word "tools").
 */
export function parseToolsArguments(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ToolsArguments | undefined {
  const toolsAt = argv.indexOf('tools');
  if (toolsAt < 0 || !onlyFlagBefore(argv.slice(0, toolsAt), '--toolstore')) return undefined;
  const before = parseRunFlags(argv.slice(0, toolsAt)).values;
  return {
    argv: argv.slice(toolsAt + 1),
    toolStore: resolveToolStore({
      flag: before.toolstore,
      env,
      storePath: defaultStorePath,
    }) as ToolStoreChoice,
  };
}
