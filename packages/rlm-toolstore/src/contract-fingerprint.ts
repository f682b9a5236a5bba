import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { ToolContract } from './tool-contract.js';

/**
 * The stable identity of a contract: `sha256:` and the hex SHA-256 of its
 * {@link canonicalJson}. Key order and `undefined` fields do not change it; any other change
 * does. Throws `InvalidToolContractError` when the contract is not plain JSON.
 */
export function contractFingerprint(contract: ToolContract): string {
  return `sha256:${createHash('sha256').update(canonicalJson(contract)).digest('hex')}`;
}
