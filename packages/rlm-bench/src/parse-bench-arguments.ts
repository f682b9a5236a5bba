/** What `pnpm bench` was asked to do. */
export interface BenchArguments {
  readonly quick: boolean;
  /** Benchmark names to run; empty for all. */
  readonly only: readonly string[];
  /** Repetitions per figure; defaults to 5, or 2 with `--quick`. */
  readonly runs: number;
  readonly help: boolean;
}

/** Parses `--quick`, `--only <name>[,<name>]` (repeatable), `--runs <n>` and `--help`. */
export function parseBenchArguments(
  argv: readonly string[],
  names: readonly string[],
): BenchArguments {
  let quick = false;
  let help = false;
  let runs: number | undefined;
  const only: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] as string;
    if (argument === '--') continue;
    if (argument === '--quick') quick = true;
    else if (argument === '--help' || argument === '-h') help = true;
    else if (argument === '--only' || argument === '--runs') {
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
  return { quick, only, runs: runs ?? (quick ? 2 : 5), help };
}
