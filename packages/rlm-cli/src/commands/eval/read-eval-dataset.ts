import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { type EvalDataset, type EvalLineProblem, parseEvalDataset } from '@rlm/eval';
import { describeReadFailure } from './describe-read-failure.js';
import { UsageError } from '../../usage-error.js';

/**
 * Reads and parses a dataset file. A line whose context file or directory is missing (or is
 * the other kind) is a problem like a malformed line: reported and skipped. Throws a
 * {@link UsageError} when the file cannot be read.
 */
export async function readEvalDataset(file: string): Promise<EvalDataset> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read the dataset ${file}: ${describeReadFailure(error)}; pass a JSONL file of {"id", "query", "context"?, "expected"} lines, or write one with rlm eval --generate sniah`,
      { cause: error },
    );
  }
  const parsed = parseEvalDataset(text, path.dirname(path.resolve(file)));
  const problems: EvalLineProblem[] = [...parsed.problems];
  const kinds = new Map<string, Promise<'file' | 'directory' | undefined>>();
  const kindOf = (target: string) => {
    let kind = kinds.get(target);
    if (kind === undefined) {
      kind = stat(target).then(
        (stats) => (stats.isDirectory() ? 'directory' : 'file'),
        () => undefined,
      );
      kinds.set(target, kind);
    }
    return kind;
  };
  const items = [];
  for (const item of parsed.items) {
    if (item.context !== undefined && (await kindOf(item.context.path)) !== item.context.kind) {
      problems.push({
        line: item.line,
        message: `id ${item.key}: no context ${item.context.kind === 'file' ? 'file' : 'directory'} ${item.context.path}`,
      });
      continue;
    }
    items.push(item);
  }
  problems.sort((a, b) => a.line - b.line);
  return { items, problems };
}
