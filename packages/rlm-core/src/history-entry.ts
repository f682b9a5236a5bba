// The shape of the sandbox's `history` variable: the loop writes it, a persistent session keeps it.

/** One code block of a step compacted out of the prompt, as model code reads it in `history`. */
export interface HistoryStep {
  /** The step's number, as the compacted summary numbers it. */
  readonly step: number;
  /** The code, exactly as it ran. */
  readonly code: string;
  /** What the model was shown of its output (with its error and notes), exactly. */
  readonly output: string;
}

/** One earlier query of a persistent session, as model code sees it in `history`. */
export interface HistoryEntry {
  readonly query: string;
  readonly answer: unknown;
  readonly iterations: number;
}

/**
 * The last entry of `history`: the query running now, with the code blocks of its steps that
 * were compacted out of the prompt (empty until the conversation outgrows
 * `historyBudgetChars`), so model code can look back at them exactly.
 */
export interface CurrentQueryHistory {
  readonly query: string;
  readonly steps: readonly HistoryStep[];
}
