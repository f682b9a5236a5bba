import { createHash } from 'node:crypto';

/**
 * Identifies a run across processes: 32 hex characters derived from the query, the context's
 * hash (see `hashContext`) and the namespace of runs (`artifacts.runNamespace`), if any. The same
 * query over the same context in the same namespace gives the same key, so a crashed run can find
 * its latest checkpoint; another namespace gives another key. Without a namespace the key is the
 * one earlier versions derived.
 */
export function runKey(query: string, contextHash: string, namespace?: string): string {
  const parts = ['rlm-run', query, contextHash, ...(namespace === undefined ? [] : [namespace])];
  return createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('hex').slice(0, 32);
}
