/**
 * A string shorter than this is a placeholder (tests, proxies, local servers that need no key),
 * not a credential: blanking it would garble ordinary words ("x" in "max").
 */
const minimumSecretLength = 8;

/**
 * `text` with every occurrence of each secret (an API key, a token) replaced by `[redacted]`,
 * for error messages that may echo a request. Missing secrets and ones shorter than 8
 * characters are ignored.
 */
export function scrubSecrets(
  text: string,
  secrets: readonly (string | null | undefined)[],
): string {
  return secrets.reduce<string>(
    (scrubbed, secret) =>
      secret && secret.length >= minimumSecretLength
        ? scrubbed.split(secret).join('[redacted]')
        : scrubbed,
    text,
  );
}
