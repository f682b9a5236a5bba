import { expect, test } from 'vitest';
import { checkBearerToken } from './check-bearer-token.js';

test('only Bearer with the exact token passes', () => {
  const token = 's3cret-token';
  expect(checkBearerToken('Bearer s3cret-token', token)).toBe(true);
  expect(checkBearerToken('bearer   s3cret-token ', token)).toBe(true);
  expect(checkBearerToken('Bearer s3cret-tokeN', token)).toBe(false);
  expect(checkBearerToken('Bearer s3cret-token-and-more', token)).toBe(false);
  expect(checkBearerToken('Basic s3cret-token', token)).toBe(false);
  expect(checkBearerToken('s3cret-token', token)).toBe(false);
  expect(checkBearerToken('Bearer ', token)).toBe(false);
  expect(checkBearerToken(undefined, token)).toBe(false);
  expect(checkBearerToken(null, token)).toBe(false);
});
