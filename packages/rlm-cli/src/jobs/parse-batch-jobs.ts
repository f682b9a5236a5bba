import path from 'node:path';
import { readJsonObjectLines } from '@rlm/eval';
import { describeJobId } from './describe-job-id.js';

/** A job's id as the input line gives it: a non-empty string or a finite number. */
export type BatchJobId = string | number;

/** One query of a batch, read from its JSONL file. */
export interface BatchJob {
  /** The line's `id`; results carry it back. */
  readonly id: BatchJobId;
  /** `id` as a string: `1` and `"1"` are the same id (see {@link batchIdKey}). */
  readonly key: string;
  /** The question. */
  readonly query: string;
  /** The line's own context file, resolved against the JSONL file's directory. */
  readonly contextFile: string | undefined;
  /** A job's own context directory (an `rlm eval` line's `context_dir`), as an absolute path. */
  readonly contextDirectory?: string;
  /** Line number in the JSONL file, from 1. */
  readonly line: number;
}

/** A line of the JSONL file that was skipped, and why. */
export interface BatchLineProblem {
  /** Line number, from 1. */
  readonly line: number;
  /** One line saying what is wrong and how to fix it. */
  readonly message: string;
}

/**
 * `id` as the key ids are compared by: its string form, so `1` and `"1"` are one id (a results
 * file read by another tool cannot tell them apart either).
 */
export function batchIdKey(id: BatchJobId): string {
  return String(id);
}

/** Characters a query may have unless `--max-query-chars` says otherwise. */
export const defaultMaxQueryChars = 100_000;

/**
 * Reads the jobs of a batch from the text of its JSONL file: one
 * `{ "id": string | number, "query": string, "context"?: path }` object a line. Blank lines are
 * ignored. Invalid JSON, a missing or empty id or query, a query over `maxQueryChars`
 * characters, a context that is not a string and an id seen on an earlier line (compared as
 * strings: `1` and `"1"` are the same id) are problems: the line is skipped and reported.
 * Relative context paths are resolved against `baseDirectory`. Does not look at the file system.
 */
export function parseBatchJobs(
  text: string,
  baseDirectory: string,
  options: { readonly maxQueryChars?: number } = {},
): { readonly jobs: readonly BatchJob[]; readonly problems: readonly BatchLineProblem[] } {
  const maxQueryChars = options.maxQueryChars ?? defaultMaxQueryChars;
  const jobs: BatchJob[] = [];
  const problems: BatchLineProblem[] = [];
  const firstOf = new Map<string, { readonly line: number; readonly id: BatchJobId }>();
  for (const entry of readJsonObjectLines(text, '{"id": 1, "query": "..."}')) {
    const { line } = entry;
    const problem = (message: string) => problems.push({ line, message });
    if ('problem' in entry) {
      problem(entry.problem);
      continue;
    }
    const { id, query, context } = entry.fields;
    if (!isJobId(id)) {
      problem('needs an "id" that is a non-empty string or a number');
      continue;
    }
    const shown = describeJobId(id);
    if (typeof query !== 'string' || query.trim() === '') {
      problem(`id ${shown} needs a "query" that is a non-empty string`);
      continue;
    }
    if (query.length > maxQueryChars) {
      problem(
        `id ${shown}: the query has ${query.length.toLocaleString('en-US')} characters, over --max-query-chars ${maxQueryChars}; shorten it (put the material in its context) or raise --max-query-chars`,
      );
      continue;
    }
    if (context !== undefined && (typeof context !== 'string' || context.trim() === '')) {
      problem(`id ${shown}: "context" must be a file path (a non-empty string)`);
      continue;
    }
    const key = batchIdKey(id);
    const first = firstOf.get(key);
    if (first !== undefined) {
      const same =
        first.id === id ? '' : ` as ${describeJobId(first.id)}; ids are compared as strings`;
      problem(
        `duplicate id ${shown} (first on line ${first.line}${same}); give each line its own id`,
      );
      continue;
    }
    firstOf.set(key, { line, id });
    jobs.push({
      id,
      key,
      query,
      contextFile: context === undefined ? undefined : path.resolve(baseDirectory, context),
      line,
    });
  }
  return { jobs, problems };
}

function isJobId(id: unknown): id is BatchJobId {
  return (
    (typeof id === 'string' && id.trim() !== '') || (typeof id === 'number' && Number.isFinite(id))
  );
}
