/** How a benchmark should run. */
export interface BenchOptions {
  /** Fewer repetitions, for a quick look (`--quick`). */
  readonly quick: boolean;
  /** Repetitions per figure: each figure is the median of this many runs. */
  readonly runs: number;
  /**
   * Parts of a benchmark to run (`--part`), among its {@link Benchmark.parts}; empty for all.
   * A benchmark without parts runs whole.
   */
  readonly parts: readonly string[];
  /** Progress lines, on stderr. */
  log(line: string): void;
}

/** A measured quantity: a number and its unit (`ms`, `MB/s`, `calls/s`, `x`, ...). */
export interface Quantity {
  readonly value: number;
  readonly unit: string;
}

/** One line of the results table. */
export interface BenchRow {
  /** The benchmark that measured it (its `--only` name). */
  readonly benchmark: string;
  /** What was measured, in words. */
  readonly figure: string;
  /** The median over `runs`. */
  readonly result: Quantity;
  /** What the same run measured for comparison, and what it is. */
  readonly baseline?: Quantity & { readonly label: string };
  /** The figure the target is stated in (a ratio to the baseline, an efficiency, ...). */
  readonly ratio?: Quantity;
  /** The target in words (`< 100 ms`, `<= 1.5x`) and whether the median meets it. */
  readonly target?: { readonly text: string; readonly met: boolean };
  /** Repetitions behind the median. */
  readonly runs: number;
  /** Anything a reader needs to read the number right. */
  readonly note?: string;
}

/** A named group of figures; `--only <name>` runs just this one. */
export interface Benchmark {
  readonly name: string;
  readonly description: string;
  /** Parts that `--part <name>` can run alone (groups of rows measured together). */
  readonly parts?: readonly string[];
  run(options: BenchOptions): Promise<BenchRow[]>;
}
