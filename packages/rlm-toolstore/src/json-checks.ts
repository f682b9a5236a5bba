/** A predicate on one field of a parsed JSON record. */
export type Check = (value: unknown) => boolean;

/** True for a JSON object (not `null`, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const isString: Check = (value) => typeof value === 'string';

/** A non-negative safe integer. */
export const isCount: Check = (value) => Number.isSafeInteger(value) && (value as number) >= 0;

/** A number in [0, 1]. */
export const isRate: Check = (value) => typeof value === 'number' && value >= 0 && value <= 1;

/** A string `Date.parse` understands. */
export const isTimestamp: Check = (value) =>
  typeof value === 'string' && !Number.isNaN(Date.parse(value));

/** Accepts `null` as well as what `check` accepts. */
export function orNull(check: Check): Check {
  return (value) => value === null || check(value);
}

/** An array whose every item passes `check`. */
export function arrayOf(check: Check): Check {
  return (value) => Array.isArray(value) && value.every(check);
}

/** The first field of `record` that fails its check, described for a log line. */
export function firstProblem(
  record: Record<string, unknown>,
  checks: Readonly<Record<string, Check>>,
): string | undefined {
  for (const [key, check] of Object.entries(checks)) {
    if (!check(record[key])) {
      const found =
        record[key] === undefined
          ? 'missing'
          : `invalid (${JSON.stringify(record[key])?.slice(0, 40)})`;
      return `field ${key} is ${found}`;
    }
  }
  return undefined;
}
