import { createHash } from 'node:crypto';

/**
 * Identifies a run across processes: 32 hex characters derived from the query and the
 * context's hash (see `hashContext`). The same query over the same context gives the same key,
 * so a crashed run can find its latest checkpoint.
 */
export function runKey(query: string, contextHash: string): string {
  return createHash('sha256')
    .update(JSON.stringify(['rlm-run', query, contextHash]), 'utf8')
    .digest('hex')
    .slice(0, 32);
}
