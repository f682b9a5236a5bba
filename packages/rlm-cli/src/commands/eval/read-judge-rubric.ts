import { readFile } from 'node:fs/promises';
import { UsageError } from '../../usage-error.js';

/** `--judge-rubric`: its text, or the file it names with `@`; a usage error for a file unread. */
export async function readJudgeRubric(text: string | undefined): Promise<string | undefined> {
  if (text === undefined || !text.startsWith('@')) return text;
  try {
    return await readFile(text.slice(1), 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read the rubric ${text.slice(1)}: ${(error as Error).message}; give --judge-rubric "<text>" or @<file>`,
      { cause: error },
    );
  }
}
