import { parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

/** The flags a sub-command accepts, as `parseArgs` options. */
export type CommandOptions = Readonly<
  Record<string, { readonly type: 'string' | 'boolean'; readonly short?: string }>
>;

/** The parsed values: strings for string flags, booleans for the others; absent when not given. */
export type CommandValues<Options extends CommandOptions> = {
  readonly [Name in keyof Options]?: Options[Name]['type'] extends 'string' ? string : boolean;
};

/**
 * `parseArgs` for a sub-command (`rlm runs`, `rlm trace`): strict, with positionals. Throws
 * a one-line `UsageError` for unknown flags and missing values.
 */
export function parseCommandArguments<const Options extends CommandOptions>(
  argv: readonly string[],
  options: Options,
): { readonly values: CommandValues<Options>; readonly positionals: readonly string[] } {
  try {
    const parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
    return { values: parsed.values as CommandValues<Options>, positionals: parsed.positionals };
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    throw new UsageError(`${message.replace(/\.$/, '')}; see --help`, { cause: error });
  }
}

/**
 * Whether the words before a maintenance command's name (`rlm --store x store gc`) are none, or
 * only `flag <value>` / `flag=<value>`; anything else makes the line a query.
 */
export function onlyFlagBefore(before: readonly string[], flag: string): boolean {
  return (
    before.length === 0 ||
    (before.length === 2 && before[0] === flag) ||
    (before.length === 1 && before[0]!.startsWith(`${flag}=`))
  );
}
