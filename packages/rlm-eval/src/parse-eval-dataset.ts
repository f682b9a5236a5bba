import path from 'node:path';
import { type EvalItem, type EvalItemId, evalItemKey } from './eval-item.js';
import { readJsonObjectLines } from './read-json-object-lines.js';

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
  for (const entry of readJsonObjectLines(text, example)) {
    const { line } = entry;
    const problem = (message: string) => problems.push({ line, message });
    if ('problem' in entry) {
      problem(entry.problem);
      continue;
    }
    const { fields } = entry;
    const { id, query, context } = fields;
    const contextDirectory = fields.context_dir;
    if (!isItemId(id)) {
      problem('needs an "id" that is a non-empty string or a number');
      continue;
    }
    const key = evalItemKey(id);
    if (typeof query !== 'string' || query.trim() === '') {
      problem(`id ${key} needs a "query" that is a non-empty string`);
      continue;
    }
    if (!Object.hasOwn(fields, 'expected')) {
      problem(`id ${key} has no "expected": add the answer it should get, e.g. "expected": "42"`);
      continue;
    }
    const notAPath = (
      [
        ['context', context],
        ['context_dir', contextDirectory],
      ] as const
    ).find(
      ([, value]) => value !== undefined && (typeof value !== 'string' || value.trim() === ''),
    );
    if (notAPath !== undefined) {
      problem(`id ${key}: "${notAPath[0]}" must be a path (a non-empty string)`);
      continue;
    }
    if (context !== undefined && contextDirectory !== undefined) {
      problem(`id ${key} has both "context" and "context_dir"; give one of them`);
      continue;
    }
    const first = firstLineOf.get(key);
    if (first !== undefined) {
      problem(`duplicate id ${key} (first on line ${first}); give each line its own id`);
      continue;
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
  }
  return { items, problems };
}

function isItemId(id: unknown): id is EvalItemId {
  return (
    (typeof id === 'string' && id.trim() !== '') || (typeof id === 'number' && Number.isFinite(id))
  );
}
