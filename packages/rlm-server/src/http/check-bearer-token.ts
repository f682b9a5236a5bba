import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an `Authorization` header carries `Bearer <token>`; compared in constant time (on
 * digests, so the token's length does not show either).
 */
export function checkBearerToken(header: string | undefined | null, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? '');
  if (match === null) return false;
  return timingSafeEqual(digest(match[1]!.trim()), digest(token));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
