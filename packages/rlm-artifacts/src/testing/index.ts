export {
  type ArtifactStoreConformanceOptions,
  runArtifactStoreConformance,
} from './run-artifact-store-conformance.js';
export {
  type CatalogWritersConformanceOptions,
  type CatalogWritersSubject,
  runCatalogWritersConformance,
} from './run-catalog-writers-conformance.js';
export {
  type RunLeaseConformanceOptions,
  runRunLeaseConformance,
} from './run-run-lease-conformance.js';
export { freePort, type RedisServer, startRedisServer } from './start-redis-server.js';
