import { InvalidToolContractError } from './errors/invalid-tool-contract-error.js';

/**
 * Serializes plain JSON data to one canonical string: object keys sorted by code unit,
 * no whitespace, `undefined` properties dropped (as `JSON.stringify` does), `-0` written as
 * `0`. Equal data gives equal strings whatever the key order it was built in.
 *
 * Throws {@link InvalidToolContractError} for anything that is not plain JSON: functions,
 * symbols, bigints, non-finite numbers, class instances, `undefined` inside arrays, cycles.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set(), '$');
}

function write(value: unknown, ancestors: Set<object>, at: string): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') {
    return JSON.stringify(value);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new InvalidToolContractError(`${at} is ${value}`);
    return JSON.stringify(value);
  }
  if (typeof value !== 'object') throw new InvalidToolContractError(`${at} is a ${typeof value}`);
  if (ancestors.has(value)) throw new InvalidToolContractError(`${at} refers back to itself`);
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const items = value.map((item, index) => {
        if (item === undefined) throw new InvalidToolContractError(`${at}[${index}] is undefined`);
        return write(item, ancestors, `${at}[${index}]`);
      });
      return `[${items.join(',')}]`;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      throw new InvalidToolContractError(`${at} is a ${prototype?.constructor?.name ?? 'object'}`);
    }
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => {
        const item = (value as Record<string, unknown>)[key];
        return `${JSON.stringify(key)}:${write(item, ancestors, `${at}.${key}`)}`;
      });
    return `{${entries.join(',')}}`;
  } finally {
    ancestors.delete(value);
  }
}
