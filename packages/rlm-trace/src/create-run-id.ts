import { randomBytes } from 'node:crypto';

/**
 * A new run id: the UTC start time and 6 random hex characters, e.g.
 * `20261124-104512-3fa9c1`. Ids sort by start time (to the second).
 */
export function createRunId(startedAt: number = Date.now()): string {
  const time = new Date(startedAt).toISOString();
  const stamp = `${time.slice(0, 10).replaceAll('-', '')}-${time.slice(11, 19).replaceAll(':', '')}`;
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}
