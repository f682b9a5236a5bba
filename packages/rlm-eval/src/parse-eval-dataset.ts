import path from 'node:path';
import { type EvalItem, type EvalItemId, evalItemKey } from './eval-item.js';

/** A line of a dataset that was skipped, and why. */
export interface EvalLineProblem {
  /** Line number, from 1. */
  readonly line: number;
  /** One line saying what is wrong and how to fix it. */
  readonly message: string;
}

/** The items of a dataset and the lines that were skipped. */
export interface EvalDataset {
  readonly items: readonly EvalItem[];
  readonly problems: readonly EvalLineProblem[];
}

const example = '{"id": 1, "query": "...", "expected": "..."}';

/**
 * Reads a dataset from the text of its JSONL file: one
 * `{ "id": string | number, "query": string, "context"?: file, "context_dir"?: directory,
 * "expected": any JSON }` object a line. Blank lines are ignored. Invalid JSON, a missing or
 * empty id or query, a missing `expected`, a context that is not a path, both `context` and
 * `context_dir`, and an id seen on an earlier line are problems: the line is skipped and
 * reported, the others are read. Relative paths are resolved against `baseDirectory`. Looks at
 * no file.
 */
export function parseEvalDataset(text: string, baseDirectory: string): EvalDataset {
  const items: EvalItem[] = [];
  const problems: EvalLineProblem[] = [];
  const firstLineOf = new Map<string, number>();
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const source = raw.trim();
    if (source === '') return;
    const problem = (message: string) => problems.push({ line, message });
    let record: unknown;
    try {
      record = JSON.parse(source);
    } catch {
      problem(`not valid JSON; each line must be one object such as ${example}`);
      return;
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      problem(`not a JSON object; each line must look like ${example}`);
      return;
    }
    const fields = record as Record<string, unknown>;
    const { id, query, context } = fields;
    const contextDirectory = fields.context_dir;
    if (!isItemId(id)) {
      problem('needs an "id" that is a non-empty string or a number');
      return;
    }
    const key = evalItemKey(id);
    if (typeof query !== 'string' || query.trim() === '') {
      problem(`id ${key} needs a "query" that is a non-empty string`);
      return;
    }
    if (!Object.hasOwn(fields, 'expected')) {
      problem(`id ${key} has no "expected": add the answer it should get, e.g. "expected": "42"`);
      return;
    }
    for (const [name, value] of [
      ['context', context],
      ['context_dir', contextDirectory],
    ] as const) {
      if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) {
        problem(`id ${key}: "${name}" must be a path (a non-empty string)`);
        return;
      }
    }
    if (context !== undefined && contextDirectory !== undefined) {
      problem(`id ${key} has both "context" and "context_dir"; give one of them`);
      return;
    }
    const first = firstLineOf.get(key);
    if (first !== undefined) {
      problem(`duplicate id ${key} (first on line ${first}); give each line its own id`);
      return;
    }
    firstLineOf.set(key, line);
    items.push({
      id,
      key,
      query,
      ...(typeof context === 'string'
        ? { context: { kind: 'file', path: path.resolve(baseDirectory, context) } }
        : typeof contextDirectory === 'string'
          ? { context: { kind: 'directory', path: path.resolve(baseDirectory, contextDirectory) } }
          : {}),
      expected: fields.expected,
      line,
    });
  });
  return { items, problems };
}

function isItemId(id: unknown): id is EvalItemId {
  return (
    (typeof id === 'string' && id.trim() !== '') || (typeof id === 'number' && Number.isFinite(id))
  );
}
