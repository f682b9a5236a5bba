import {
  type StoreArguments,
  parseStoreArguments,
} from './commands/store/parse-store-arguments.js';
import {
  parseToolsArguments,
  type ToolsArguments,
} from './commands/tools/parse-tools-arguments.js';
import { parseRunOptions, type RunArguments } from './run-options/parse-run-options.js';

/** The commands named by their first word, each parsing the words after it itself. */
const namedCommands = ['runs', 'trace', 'batch', 'worker', 'serve', 'mcp', 'eval'] as const;

/** A command named by its first word. */
export type NamedCommand = (typeof namedCommands)[number];

/** What the command line asks for. */
export type CliCommand =
  | RunArguments
  /** `rlm <command> ...`: the words after the command's name, parsed by the command. */
  | { readonly kind: NamedCommand; readonly argv: readonly string[] }
  /** `rlm [--toolstore <dir>] tools ...`. */
  | ({ readonly kind: 'tools' } & ToolsArguments)
  /** `rlm [--store <file>] store ...`. */
  | ({ readonly kind: 'store' } & StoreArguments);

/**
 * Picks the command `argv` (without `node` and the script) asks for; a line that names no
 * command is a run, parsed against the environment by `parseRunOptions`. Throws a
 * `UsageError` with a one-line message for bad flags. Reads no file and checks no API key.
 */
export function parseArguments(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): CliCommand {
  const tools = parseToolsArguments(argv, env);
  if (tools !== undefined) return { kind: 'tools', ...tools };
  const first = argv[0];
  const named = namedCommands.find((name) => name === first);
  if (named !== undefined) return { kind: named, argv: argv.slice(1) };
  const store = parseStoreArguments(argv);
  if (store !== undefined) return { kind: 'store', ...store };
  return parseRunOptions(argv, env);
}
