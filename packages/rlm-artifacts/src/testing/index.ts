export { runArtifactStoreConformance } from './run-artifact-store-conformance.js';
export { runRunLeaseConformance } from './run-run-lease-conformance.js';
