import type { ArtifactStore } from '@rlm/core';
import { UsageError } from './usage-error.js';

/** Whether a `--store` value names a Redis server (`redis://` or `rediss://`) instead of a file. */
export function isRedisUrl(storePath: string): boolean {
  return /^rediss?:\/\//i.test(storePath);
}

/**
 * Opens the artifact store `--store` names: a SQLite file, or a Redis server
 * (`redis://host:port`, through `@keyv/redis`) that processes on several machines share. A
 * failure is a usage error naming the flags to change it.
 */
export async function openStore(storePath: string): Promise<ArtifactStore> {
  try {
    if (isRedisUrl(storePath)) {
      const [{ createKeyv }, { createArtifactStore }] = await Promise.all([
        import('@keyv/redis'),
        import('@rlm/artifacts'),
      ]);
      const keyv = createKeyv(storePath, {
        namespace: 'rlm',
        throwOnConnectError: true,
        throwOnErrors: true,
      });
      // Connect now: an unreachable server is a usage error before any model call.
      await keyv.get('rlm:connection-check');
      return createArtifactStore({ keyv });
    }
    // Loaded on demand: SQLite's native module is not needed (or even present) with --no-store.
    const { createSqliteArtifactStore } = await import('@rlm/artifacts');
    return await createSqliteArtifactStore({ path: storePath });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^@rlm\/artifacts: /, '') : '';
    throw new UsageError(`${reason || String(error)}; pass --store <file> or --no-store`, {
      cause: error,
    });
  }
}
