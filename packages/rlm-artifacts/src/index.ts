export {
  acquireRunLease,
  type RunLease,
  type RunLeaseOptions,
} from './acquire-run-lease.js';
export {
  type CollectGarbageOptions,
  collectGarbage,
  type GarbageCollected,
} from './collect-garbage.js';
export {
  type ArtifactStoreSettings,
  createArtifactStore,
  defaultChunkChars,
  defaultScope,
} from './create-artifact-store.js';
export {
  createMemoryArtifactStore,
  type MemoryArtifactStoreSettings,
} from './create-memory-artifact-store.js';
export {
  createRedisArtifactStore,
  type RedisArtifactStoreSettings,
} from './create-redis-artifact-store.js';
export {
  createSqliteArtifactStore,
  defaultSqlitePath,
  type SqliteArtifactStoreSettings,
} from './create-sqlite-artifact-store.js';
export * from './errors/index.js';
export { hashContext, runKey } from '@rlm/core';
