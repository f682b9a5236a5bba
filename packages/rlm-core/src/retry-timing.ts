/** The first backoff wait, in milliseconds; each later one doubles, up to {@link maxBackoffMs}. */
const firstBackoffMs = 500;
const maxBackoffMs = 8_000;

/** The wait before retry `retry` (1 for the first) when the API did not say how long. */
export function backoffDelayMs(retry: number): number {
  return Math.min(firstBackoffMs * 2 ** (retry - 1), maxBackoffMs);
}

/**
 * How long the API asked to wait, in milliseconds, from `retry-after-ms` (milliseconds) or
 * `retry-after` (seconds or an HTTP date); `undefined` when it said nothing readable. A date in
 * the past is 0.
 */
export function readRetryAfterMs(
  headers: Headers | undefined,
  now = Date.now(),
): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.ceil(milliseconds);
  const text = headers?.get('retry-after')?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
