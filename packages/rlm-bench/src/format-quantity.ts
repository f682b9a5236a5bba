import type { Quantity } from './benchmark.js';

/** A number for people: three significant digits, thousands separated, then the unit. */
export function formatQuantity({ value, unit }: Quantity): string {
  const magnitude = Math.abs(value);
  const digits =
    magnitude >= 100 || magnitude === 0 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
  const number = value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  return unit === 'x' ? `${number}x` : `${number} ${unit}`;
}
