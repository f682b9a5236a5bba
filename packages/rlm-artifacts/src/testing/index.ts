export { runArtifactStoreConformance } from './run-artifact-store-conformance.js';
