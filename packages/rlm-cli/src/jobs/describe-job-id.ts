/** A job's id: a non-empty string or a finite number (`BatchJobId`). */
type JobId = string | number;

/** Characters of an id a message shows at most. */
const maxShownChars = 64;

/**
 * A job's id as messages show it: a number as it is, a string as JSON (quoted, with line breaks
 * and control characters escaped, so no id can forge a line); an id longer than 64 characters
 * is cut, with its length: `"aaaa…" (1,048,576 characters)`.
 */
export function describeJobId(id: JobId): string {
  const shown = typeof id === 'number' ? String(id) : JSON.stringify(id);
  if (shown.length <= maxShownChars) return shown;
  const length = typeof id === 'number' ? shown.length : id.length;
  return `${shown.slice(0, maxShownChars - 16)}…" (${length.toLocaleString('en-US')} characters)`;
}

/** Ids listed in one message at most. */
const maxListed = 10;

/** Several ids for a message: the first ten, each as {@link describeJobId}, then how many more. */
export function describeJobIds(ids: readonly JobId[]): string {
  const shown = ids.slice(0, maxListed).map(describeJobId).join(', ');
  return ids.length > maxListed ? `${shown} and ${ids.length - maxListed} more` : shown;
}
