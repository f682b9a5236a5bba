import { UsageError } from '../../usage-error.js';

/** The flags a sub-command adds to the run flags, and the run flags it refuses. */
export interface OwnFlags {
  /** The sub-command, for messages: `rlm serve`. */
  readonly command: string;
  /** Flags that take a value (`--port 8765`, `--port=8765`); repeating one keeps every value. */
  readonly valued: readonly string[];
  /** Flags that take none (`--mcp`). */
  readonly switches: readonly string[];
  /** Run flags that mean nothing here, with the reason said when one is given. */
  readonly refused: ReadonlyMap<string, string>;
}

/**
 * Takes a sub-command's own flags out of `argv` and leaves the rest (the run flags, parsed by
 * `parseArguments`) in order. Throws a {@link UsageError} for a refused flag, a valued flag
 * without a value, a switch given a value, and any positional argument.
 */
export function splitOwnFlags(
  argv: readonly string[],
  flags: OwnFlags,
): {
  readonly values: ReadonlyMap<string, readonly string[]>;
  readonly switches: ReadonlySet<string>;
  readonly rest: readonly string[];
} {
  const values = new Map<string, string[]>();
  const switches = new Set<string>();
  const rest: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index]!;
    const equals = word.startsWith('--') ? word.indexOf('=') : -1;
    const flag = equals === -1 ? word : word.slice(0, equals);
    const inline = equals === -1 ? undefined : word.slice(equals + 1);
    const refused = flags.refused.get(flag);
    if (refused !== undefined) {
      throw new UsageError(`${flags.command} takes no ${flag}: ${refused}`);
    }
    if (flags.switches.includes(flag)) {
      if (inline !== undefined) throw new UsageError(`${flag} takes no value`);
      switches.add(flag);
    } else if (flags.valued.includes(flag)) {
      const value = inline ?? argv[++index];
      if (value === undefined || (inline === undefined && value.startsWith('-'))) {
        throw new UsageError(`${flag} needs a value`);
      }
      values.set(flag, [...(values.get(flag) ?? []), value]);
    } else if (!word.startsWith('-')) {
      throw new UsageError(
        `${flags.command} takes no ${JSON.stringify(word)}: questions come from its clients; see ${flags.command} --help`,
      );
    } else {
      rest.push(word);
      // A run flag's value travels with it.
      const next = argv[index + 1];
      if (equals === -1 && next !== undefined && !next.startsWith('-')) rest.push(argv[++index]!);
    }
  }
  return { values, switches, rest };
}
