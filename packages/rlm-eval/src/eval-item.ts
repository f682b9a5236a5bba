/** An item's id as its dataset line gives it: a non-empty string or a finite number. */
export type EvalItemId = string | number;

/** Where an item's context comes from, resolved against the dataset file's directory. */
export type EvalItemContext =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'directory'; readonly path: string };

/** One question of a dataset, with the answer it should get. */
export interface EvalItem {
  /** The line's `id`; results carry it back. */
  readonly id: EvalItemId;
  /** `id` as a string that tells `1` and `"1"` apart (see {@link evalItemKey}). */
  readonly key: string;
  /** The question. */
  readonly query: string;
  /** The line's `context` (a file) or `context_dir` (a directory); absent for none. */
  readonly context?: EvalItemContext;
  /** The line's `expected`: any JSON value (a string, a number, an object, an array, `null`). */
  readonly expected: unknown;
  /** Line number in the dataset, from 1. */
  readonly line: number;
}

/** `id` as a key unique per id: `1` and `"1"` differ. */
export function evalItemKey(id: EvalItemId): string {
  return JSON.stringify(id);
}
