export { ArtifactConflictError } from './artifact-conflict-error.js';
export { ArtifactCorruptError } from './artifact-corrupt-error.js';
export { type ArtifactKind, ArtifactNotFoundError } from './artifact-not-found-error.js';
export { ArtifactStoreError } from './artifact-store-error.js';
export { ArtifactValueError } from './artifact-value-error.js';
export { RunLeaseHeldError, type RunLeaseHolder } from './run-lease-held-error.js';
