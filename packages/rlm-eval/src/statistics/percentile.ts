/**
 * The `q` quantile (0 to 1) of `values` by linear interpolation between the closest ranks (the
 * usual default: "type 7"): p50 of [1, 2, 3, 4] is 2.5. `undefined` for no values.
 */
export function percentile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}
