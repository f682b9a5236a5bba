/**
 * Decimal places a US-dollar cost keeps in JSON output: nano-dollars, finer than any token's
 * price (the cheapest are about 5e-8 dollars a token), so rounding loses nothing real.
 */
export const costDecimals = 9;

/**
 * `usd` rounded to {@link costDecimals} places: a sum of per-call costs such as
 * `0.0031060000000000003` (binary floating point) is written `0.003106`.
 */
export function roundCost(usd: number): number {
  if (!Number.isFinite(usd)) return usd;
  const scale = 10 ** costDecimals;
  return Math.round(usd * scale) / scale;
}

/** A `JSON.stringify` replacer that rounds every number named `costUsd` (see {@link roundCost}). */
export function roundCosts(key: string, value: unknown): unknown {
  return key === 'costUsd' && typeof value === 'number' ? roundCost(value) : value;
}

/**
 * `value` as a results file holds it once written and read back: costs rounded (see
 * {@link roundCosts}), so numbers derived from it (an eval's report) equal those derived from
 * the file.
 */
export function asWrittenWithRoundedCosts<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, roundCosts)) as T;
}
