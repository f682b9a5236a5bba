import { readFile } from 'node:fs/promises';
import { batchIdKey, type BatchJobId } from './parse-batch-jobs.js';

/** What an earlier run of the same batch left in its results file. */
export interface AnsweredIds {
  /** Keys ({@link batchIdKey}) of the ids with an answer; ids with an error are not among them. */
  readonly keys: ReadonlySet<string>;
  /** Whether the file's last line was cut short (a killed batch): append a newline first. */
  readonly endsMidLine: boolean;
}

/**
 * Reads a batch's results file (JSON lines) for the ids already answered. A missing file has
 * none. Lines that are not JSON objects with an `id` (a line cut short by a kill) are ignored.
 */
export async function readAnsweredIds(file: string): Promise<AnsweredIds> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { keys: new Set(), endsMidLine: false };
    }
    throw error;
  }
  const keys = new Set<string>();
  for (const line of text.split('\n')) {
    const record = parseObject(line);
    if (record === undefined || !('answer' in record) || 'error' in record) continue;
    const id = record.id;
    if (typeof id === 'string' || typeof id === 'number') keys.add(batchIdKey(id as BatchJobId));
  }
  return { keys, endsMidLine: text.length > 0 && !text.endsWith('\n') };
}

function parseObject(line: string): Record<string, unknown> | undefined {
  if (line.trim() === '') return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
