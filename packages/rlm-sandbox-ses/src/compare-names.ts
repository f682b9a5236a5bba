/** Orders names by UTF-16 code units, as `Array.prototype.sort` would without a comparator. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
