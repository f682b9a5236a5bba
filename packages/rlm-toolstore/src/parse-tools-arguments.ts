import { isToolName } from './assert-tool-name.js';

/** One `rlm tools` command, parsed. */
export type ToolsCommand =
  | { readonly name: 'help' }
  | { readonly name: 'list'; readonly json: boolean }
  | { readonly name: 'stale'; readonly json: boolean; readonly pruneAfterDays?: number }
  | { readonly name: 'prune'; readonly dryRun: boolean; readonly pruneAfterDays?: number }
  | { readonly name: 'restore'; readonly role: string; readonly archiveId?: string }
  | { readonly name: 'quarantine'; readonly role: string; readonly method: string }
  | {
      readonly name: 'bless';
      readonly role: string;
      readonly method: string;
      readonly resetMetrics: boolean;
    }
  | {
      readonly name: 'show';
      readonly role: string;
      readonly method?: string;
      readonly json: boolean;
    };

/** A parsed command, or the one line saying why the arguments are wrong. */
export type ParsedToolsArguments =
  | { readonly ok: true; readonly command: ToolsCommand }
  | { readonly ok: false; readonly message: string };

type CommandName = Exclude<ToolsCommand['name'], 'help'>;

/** Per command: its flags (true when the flag takes a value) and its positional arguments. */
const grammar: Readonly<
  Record<CommandName, { flags: Readonly<Record<string, boolean>>; positionals: readonly string[] }>
> = {
  list: { flags: { '--json': false }, positionals: [] },
  stale: { flags: { '--json': false, '--older-than': true }, positionals: [] },
  prune: { flags: { '--dry-run': false, '--older-than': true }, positionals: [] },
  restore: { flags: {}, positionals: ['<role>', '[archive-id]'] },
  quarantine: { flags: {}, positionals: ['<role.method>'] },
  bless: { flags: { '--reset-metrics': false }, positionals: ['<role.method>'] },
  show: { flags: { '--json': false }, positionals: ['<role[.method]>'] },
};

/**
 * Parses the arguments after `rlm tools`. Flags take values as `--older-than 30` or
 * `--older-than=30`; `-h`, `--help` or `help` anywhere asks for help. Pure.
 */
export function parseToolsArguments(argv: readonly string[]): ParsedToolsArguments {
  if (argv.length === 0) {
    return fail(`missing command; expected one of ${Object.keys(grammar).join(', ')}`);
  }
  if (argv.some((arg) => arg === '-h' || arg === '--help') || argv[0] === 'help') {
    return { ok: true, command: { name: 'help' } };
  }
  const [first = '', ...rest] = argv;
  if (!Object.hasOwn(grammar, first)) {
    return fail(
      `unknown command ${JSON.stringify(first)}; expected one of ${Object.keys(grammar).join(', ')}`,
    );
  }
  const name = first as CommandName;
  const rule = grammar[name];
  const flags = new Map<string, string | true>();
  const positionals: string[] = [];
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index]!;
    if (!arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    const [flag = '', inline] = splitFlag(arg);
    const takesValue = rule.flags[flag];
    if (takesValue === undefined) return fail(`unknown option ${flag} for ${name}`);
    if (!takesValue) {
      if (inline !== undefined) return fail(`option ${flag} takes no value`);
      flags.set(flag, true);
      continue;
    }
    const value = inline ?? rest[++index];
    if (value === undefined) return fail(`option ${flag} needs a value`);
    flags.set(flag, value);
  }
  const required = rule.positionals.filter((positional) => positional.startsWith('<')).length;
  if (positionals.length < required) return fail(`${name} needs ${rule.positionals[0]}`);
  if (positionals.length > rule.positionals.length) {
    return fail(
      `unexpected argument ${JSON.stringify(positionals[rule.positionals.length])} for ${name}`,
    );
  }
  let pruneAfterDays: number | undefined;
  const olderThan = flags.get('--older-than');
  if (typeof olderThan === 'string') {
    pruneAfterDays = Number(olderThan);
    if (!/^\d+(\.\d+)?$/.test(olderThan) || !Number.isFinite(pruneAfterDays)) {
      return fail(`--older-than needs a number of days, not ${JSON.stringify(olderThan)}`);
    }
  }
  const json = flags.has('--json');
  const target = positionals[0] ?? '';
  switch (name) {
    case 'list':
      return { ok: true, command: { name, json } };
    case 'stale':
      return { ok: true, command: { name, json, pruneAfterDays } };
    case 'prune':
      return { ok: true, command: { name, dryRun: flags.has('--dry-run'), pruneAfterDays } };
    case 'restore':
      if (!isToolName(target)) return fail(`invalid role ${JSON.stringify(target)}`);
      return { ok: true, command: { name, role: target, archiveId: positionals[1] } };
    case 'show': {
      const [role, method] = target.split('.', 2) as [string, string | undefined];
      if (!validTarget(target, true)) return fail(invalidTarget(target, true));
      return { ok: true, command: { name, role, method, json } };
    }
    case 'quarantine':
    case 'bless': {
      if (!validTarget(target, false)) return fail(invalidTarget(target, false));
      const [role, method] = target.split('.') as [string, string];
      return name === 'bless'
        ? { ok: true, command: { name, role, method, resetMetrics: flags.has('--reset-metrics') } }
        : { ok: true, command: { name, role, method } };
    }
  }
}

function splitFlag(arg: string): [string, string | undefined] {
  const equals = arg.indexOf('=');
  return equals === -1 ? [arg, undefined] : [arg.slice(0, equals), arg.slice(equals + 1)];
}

function validTarget(target: string, roleAlone: boolean): boolean {
  const parts = target.split('.');
  if (parts.length === 1) return roleAlone && isToolName(parts[0]);
  return parts.length === 2 && isToolName(parts[0]) && isToolName(parts[1]);
}

function invalidTarget(target: string, roleAlone: boolean): string {
  const expected = roleAlone ? 'role or role.method' : 'role.method';
  return `invalid ${expected} ${JSON.stringify(target)}; names are identifiers like csv_parser.parse`;
}

function fail(message: string): ParsedToolsArguments {
  return { ok: false, message };
}
