import { coreFunctionNames } from '../loop/core-functions.js';
import { artifactsFeatureNames } from './artifacts/artifacts-feature.js';
import { durableToolsFeatureNames } from './durable-tools/durable-tools-feature.js';

/** Globals every sandbox defines itself, and the prose-only `FINAL` marker. */
const sandboxNames = ['context', 'history', 'print', 'console', 'FINAL'];

/**
 * Names model code already has, or would have with a feature installed: a host tool may not
 * take them. Made from the core's and the features' own lists, never kept by hand.
 */
export const reservedNames: ReadonlySet<string> = new Set([
  ...sandboxNames,
  ...coreFunctionNames,
  ...artifactsFeatureNames,
  ...durableToolsFeatureNames,
]);
