import type { JsonValue } from './json-value.js';

/**
 * What a tool promises, as declared by `delegate(role, contract)` in model code. Every field
 * is optional and plain JSON; the whole object is fingerprinted (see `contractFingerprint`),
 * so changing any field marks the tool's persisted methods stale.
 */
export interface ToolContract {
  /** One sentence: what the tool is for. Shown in the known-tools prompt block. */
  readonly purpose?: string;
  /** The shape of what methods return, for example a JSON Schema. */
  readonly deliverable?: JsonValue;
  /** Checks a result must pass to count as a success. */
  readonly acceptance?: JsonValue;
  /** What a method does on error, for example `{ "onError": "return_error" }`. */
  readonly failurePolicy?: JsonValue;
}
