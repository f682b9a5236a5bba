import { formatErrorLine } from '@rlm/core';
import type { ArtifactStore } from '@rlm/core';
import { UsageError } from '../usage-error.js';

/** How long a Redis store keeps a job's keys unless `--artifact-ttl` says otherwise: 7 days. */
export const defaultArtifactTtlMs = 7 * 86_400_000;

/** Whether a `--store` value names a Redis server (`redis://` or `rediss://`) instead of a file. */
export function isRedisUrl(storePath: string): boolean {
  return /^rediss?:\/\//i.test(storePath);
}

/** How {@link openStore} reaches a Redis store. */
export interface OpenStoreOptions {
  /** `--connect-timeout`, in milliseconds. */
  readonly connectTimeoutMs: number;
  /** Every key of a Redis store expires this long after its last write (`--artifact-ttl`). */
  readonly ttlMs?: number;
}

/**
 * Opens the artifact store `--store` names: a SQLite file, or a Redis server
 * (`redis://host:port`) that processes on several machines share, connected before this
 * resolves. A failure (no such directory, a refused port, a wrong database, TLS to a plain
 * server, no answer within `connectTimeoutMs`) is a usage error naming the store and the flags
 * to change it, before any model call.
 */
export async function openStore(
  storePath: string,
  options: OpenStoreOptions,
): Promise<ArtifactStore> {
  try {
    if (isRedisUrl(storePath)) {
      const { createRedisArtifactStore } = await import('@rlm/artifacts');
      return await createRedisArtifactStore({
        url: storePath,
        connectTimeoutMs: options.connectTimeoutMs,
        ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
      });
    }
    // Loaded on demand: SQLite's native module is not needed (or even present) with --no-store.
    const { createSqliteArtifactStore } = await import('@rlm/artifacts');
    return await createSqliteArtifactStore({ path: storePath });
  } catch (error) {
    const reason = formatErrorLine(error);
    const fix = isRedisUrl(storePath)
      ? 'start Redis, fix --store (or --connect-timeout), or pass --no-store'
      : 'pass --store <file> or --no-store';
    throw new UsageError(`${reason || String(error)}; ${fix}`, { cause: error });
  }
}
