export {
  type ArtifactStoreConformanceOptions,
  runArtifactStoreConformance,
} from './run-artifact-store-conformance.js';
export {
  type RunLeaseConformanceOptions,
  runRunLeaseConformance,
} from './run-run-lease-conformance.js';
export { rewriteSqliteRows } from './rewrite-sqlite-rows.js';
