const semver = /^v?(\d+)\.(\d+)\.(\d+)/;

/**
 * Whether code persisted under runtime `persisted` may run under runtime `current`, by the
 * caret rule: same major version (same minor too while the major is 0) and `current` not
 * older than `persisted`. Versions that are not semver must be equal. Prerelease and build
 * suffixes are ignored.
 */
export function isRuntimeCompatible(persisted: string, current: string): boolean {
  const from = semver.exec(persisted);
  const to = semver.exec(current);
  if (from === null || to === null) return persisted === current;
  const [a0, a1, a2] = from.slice(1).map(Number) as [number, number, number];
  const [b0, b1, b2] = to.slice(1).map(Number) as [number, number, number];
  if (a0 !== b0 || (a0 === 0 && a1 !== b1)) return false;
  return b1 > a1 || (b1 === a1 && b2 >= a2);
}
