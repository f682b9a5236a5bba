import { UsageError } from '../usage-error.js';

const byteUnits: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  t: 1024 ** 4,
};

/** `--redaction-ratio`: a number above 0 (`0.25`, `.5`, `2`), or `off`. */
export function parseRedactionRatio(text: string): number {
  if (text.trim().toLowerCase() === 'off') return Number.POSITIVE_INFINITY;
  const value = /^(\d+(\.\d*)?|\.\d+)$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0) {
    throw new UsageError(
      `--redaction-ratio needs a number above 0 such as 0.25, or off (got ${JSON.stringify(text)})`,
    );
  }
  return value;
}

/** A positive whole number given to `flag`; `undefined` when the flag was not given. */
export function optionalInteger(text: string | undefined, flag: string): number | undefined {
  return text === undefined ? undefined : parsePositiveInteger(text, flag);
}

/** A positive whole number given to `flag`, e.g. `--concurrency 4`. */
export function parsePositiveInteger(text: string, flag: string): number {
  return checkPositive(
    /^\d+$/.test(text) ? Number(text) : Number.NaN,
    text,
    flag,
    'a positive whole number',
  );
}

const durationUnits: Record<string, number> = {
  '': 1,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Milliseconds, or a number with a unit: `90000`, `90s`, `30m`, `2h`, `7d`. */
export function parseDuration(text: string, flag: string): number {
  const match = /^(\d+)\s*(ms|s|m|h|d)?$/i.exec(text.trim());
  const value =
    match === null ? Number.NaN : Number(match[1]) * durationUnits[(match[2] ?? '').toLowerCase()]!;
  return checkPositive(value, text, flag, 'a duration such as 600000 (ms), 90s, 30m, 2h or 7d');
}

/** A whole number of 0 or more, e.g. `--max-retries 0`. */
export function optionalCount(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new UsageError(`${flag} needs a whole number of 0 or more (got ${JSON.stringify(text)})`);
  }
  return value;
}

/** Bytes, with optional binary suffixes: `1048576`, `512K`, `256MiB`, `2G`, `1gb`. */
export function parseByteCount(text: string, flag: string): number {
  const match = /^(\d+)\s*(?:([kmgt])(?:i?b)?|(b))?$/i.exec(text.trim());
  const unit = byteUnits[(match?.[2] ?? match?.[3] ?? '').toLowerCase()]!;
  const value = match === null ? Number.NaN : Number(match[1]) * unit;
  return checkPositive(value, text, flag, 'a size in bytes such as 536870912, 512M or 1GiB');
}

/** A positive amount of US dollars: `5`, `0.50`, `.25`. */
export function parseDollars(text: string): number {
  const value = /^(\d+(\.\d*)?|\.\d+)$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0) {
    throw new UsageError(
      `--max-cost needs a positive number of US dollars such as 0.50 (got ${JSON.stringify(text)})`,
    );
  }
  return value;
}

function checkPositive(value: number, text: string, flag: string, expected: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`${flag} needs ${expected} (got ${JSON.stringify(text)})`);
  }
  return value;
}
