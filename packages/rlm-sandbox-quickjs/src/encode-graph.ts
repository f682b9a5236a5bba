import type { EncodedGraph } from './decode-graph.js';

type Item = EncodedGraph['root'];

function describeKind(value: unknown): string {
  return typeof value === 'function' ? 'a function' : `a ${typeof value}`;
}

/**
 * Encodes host data in the guest kit's graph format (see `decodeGraph`): shared and cyclic
 * references stay references, and bigint, undefined, NaN, -0, `Date`, `Map`, `Set` and errors
 * keep what they are. The JSON text is what the guest decodes.
 *
 * @throws TypeError for a function or a symbol anywhere in `value`.
 */
export function encodeGraph(value: unknown): string {
  const seen = new Map<object, number>();
  const objects: unknown[] = [];
  const item = (entry: unknown): Item => {
    switch (typeof entry) {
      case 'string':
      case 'boolean':
        return entry;
      case 'number':
        if (Object.is(entry, -0)) return ['d', '-0'];
        return Number.isFinite(entry) ? entry : ['d', String(entry)];
      case 'undefined':
        return ['u'];
      case 'bigint':
        return ['n', entry.toString()];
      case 'object':
        break;
      default:
        throw new TypeError(`${describeKind(entry)} is not data`);
    }
    if (entry === null) return null;
    const known = seen.get(entry);
    if (known !== undefined) return ['r', known];
    const index = objects.length;
    seen.set(entry, index);
    objects.push(null);
    if (Array.isArray(entry)) objects[index] = ['a', entry.map(item)];
    else if (entry instanceof Date) objects[index] = ['D', entry.getTime()];
    else if (entry instanceof Map) {
      objects[index] = ['M', [...entry].map(([key, mapped]) => [item(key), item(mapped)])];
    } else if (entry instanceof Set) objects[index] = ['S', [...entry].map(item)];
    else if (entry instanceof Error) objects[index] = ['E', entry.name, entry.message];
    else {
      objects[index] = ['o', Object.entries(entry).map(([key, field]) => [key, item(field)])];
    }
    return ['r', index];
  };
  const root = item(value);
  return JSON.stringify({ root, objects });
}
