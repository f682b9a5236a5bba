import { createHash } from 'node:crypto';

/** The integrity checksum of method code: `sha256:` and the hex SHA-256 of its UTF-8 bytes. */
export function codeChecksum(code: string): string {
  return `sha256:${createHash('sha256').update(code, 'utf8').digest('hex')}`;
}
