import { createHash } from 'node:crypto';
import { updateWithText } from '@rlm/core';

/** The SHA-256 of the content's bytes (UTF-8 for text), as 64 hex characters. */
export function sha256Hex(content: string | Uint8Array): string {
  const hash = createHash('sha256');
  if (typeof content === 'string') {
    updateWithText(hash, content);
  } else {
    hash.update(content);
  }
  return hash.digest('hex');
}

/**
 * A fixed-length, key-safe stand-in for opaque strings (record names, scopes, run keys): 32 hex
 * characters of the SHA-256 of the parts. Distinct part lists never share a digest input.
 */
export function keyDigest(...parts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('hex').slice(0, 32);
}
