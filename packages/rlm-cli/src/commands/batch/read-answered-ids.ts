import { batchIdKey, type BatchJobId } from '../../jobs/parse-batch-jobs.js';

/** What an earlier run of the same batch left in its results file. */
export interface AnsweredIds {
  /** Keys ({@link batchIdKey}) of the ids with an answer; ids with an error are not among them. */
  readonly keys: ReadonlySet<string>;
  /**
   * How the file ends: `whole` (empty, or a newline last); `unterminated`, a last line complete
   * but for its newline (append one before writing); `torn`, a last line cut short (a batch
   * killed mid-write, a full disk): keep only the first `keepBytes` bytes.
   */
  readonly tail:
    | { readonly kind: 'whole' }
    | { readonly kind: 'unterminated' }
    | { readonly kind: 'torn'; readonly keepBytes: number; readonly tornBytes: number };
}

/**
 * Reads a batch's results file (JSON lines, as bytes) for the ids already answered. Lines that
 * are not JSON objects with an `id` are ignored: a line cut short is never a complete JSON
 * object (its closing brace comes last), so it can never pass as an answer.
 */
export function readAnsweredIds(contents: Uint8Array): AnsweredIds {
  const bytes = Buffer.from(contents.buffer, contents.byteOffset, contents.byteLength);
  const keys = new Set<string>();
  let lastLine: Record<string, unknown> | undefined;
  for (const line of bytes.toString('utf8').split('\n')) {
    lastLine = parseObject(line);
    if (lastLine === undefined || !('answer' in lastLine) || 'error' in lastLine) continue;
    const id = lastLine.id;
    if (typeof id === 'string' || typeof id === 'number') keys.add(batchIdKey(id as BatchJobId));
  }
  const end = bytes.lastIndexOf(0x0a) + 1;
  if (end === bytes.byteLength) return { keys, tail: { kind: 'whole' } };
  return {
    keys,
    tail:
      lastLine !== undefined && 'id' in lastLine
        ? { kind: 'unterminated' }
        : { kind: 'torn', keepBytes: end, tornBytes: bytes.byteLength - end },
  };
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
