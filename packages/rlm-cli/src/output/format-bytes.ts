const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** Formats a byte count with binary units: `512 B`, `1.5 KiB`, `256 MiB`. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || Number.isInteger(value) ? 0 : 1;
  return `${value.toFixed(digits)} ${units[unit]}`;
}
