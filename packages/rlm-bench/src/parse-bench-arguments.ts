/** What `pnpm bench` was asked to do. */
export interface BenchArguments {
  readonly quick: boolean;
  /** Benchmark names to run; empty for all. */
  readonly only: readonly string[];
  /** Benchmark parts to run (`--part`); empty for all. */
  readonly parts: readonly string[];
  /** Repetitions per figure; defaults to 5, or 2 with `--quick`. */
  readonly runs: number;
  readonly help: boolean;
}

/**
 * Parses `--quick`, `--only <name>[,<name>]` and `--part <name>[,<name>]` (both repeatable),
 * `--runs <n>` and `--help`. `names` are the benchmarks, `partNames` the parts they declare.
 */
export function parseBenchArguments(
  argv: readonly string[],
  names: readonly string[],
  partNames: readonly string[] = [],
): BenchArguments {
  let quick = false;
  let help = false;
  let runs: number | undefined;
  const only: string[] = [];
  const parts: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] as string;
    if (argument === '--') continue;
    if (argument === '--quick') quick = true;
    else if (argument === '--help' || argument === '-h') help = true;
    else if (argument === '--part') {
      const value = argv[++index];
      if (value === undefined) throw new Error('--part needs a value');
      for (const name of value.split(',')) {
        if (!partNames.includes(name)) {
          throw new Error(`unknown part ${JSON.stringify(name)}; one of: ${partNames.join(', ')}`);
        }
        parts.push(name);
      }
    } else if (argument === '--only' || argument === '--runs') {
      const value = argv[++index];
      if (value === undefined) throw new Error(`${argument} needs a value`);
      if (argument === '--runs') {
        runs = Number(value);
        if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a positive integer');
      } else {
        for (const name of value.split(',')) {
          if (!names.includes(name)) {
            throw new Error(
              `unknown benchmark ${JSON.stringify(name)}; one of: ${names.join(', ')}`,
            );
          }
          only.push(name);
        }
      }
    } else throw new Error(`unknown argument ${JSON.stringify(argument)}; see --help`);
  }
  return { quick, only, parts, runs: runs ?? (quick ? 2 : 5), help };
}
