export type * from './artifact-store.js';
export { createRLM, type HistoryEntry } from './create-rlm.js';
export * from './errors/index.js';
export type * from './events.js';
export type * from './language-model.js';
export type * from './rlm-settings.js';
export * from './sandbox.js';
