export * from './errors/index.js';
export type * from './language-model.js';
export * from './sandbox.js';
