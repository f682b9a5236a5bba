import { keyDigest } from './sha256.js';

/**
 * Identifies a run across processes: 32 hex characters derived from the query and the
 * context's hash (see `hashContext`). The same query over the same context gives the same key,
 * so a crashed run can find its latest checkpoint.
 */
export function runKey(query: string, contextHash: string): string {
  return keyDigest('rlm-run', query, contextHash);
}
