const plainPrototypes = new Set<object | null>([
  null,
  Object.prototype,
  Array.prototype,
  Map.prototype,
  Set.prototype,
  Date.prototype,
  RegExp.prototype,
  Error.prototype,
  EvalError.prototype,
  RangeError.prototype,
  ReferenceError.prototype,
  SyntaxError.prototype,
  TypeError.prototype,
  URIError.prototype,
  ArrayBuffer.prototype,
  DataView.prototype,
  Boolean.prototype,
  Number.prototype,
  String.prototype,
  BigInt.prototype,
  ...[
    Int8Array,
    Uint8Array,
    Uint8ClampedArray,
    Int16Array,
    Uint16Array,
    Int32Array,
    Uint32Array,
    Float32Array,
    Float64Array,
    BigInt64Array,
    BigUint64Array,
  ].map((typedArray) => typedArray.prototype as object),
]);

/** Bytes a primitive clones to; `undefined` for what does not clone; `-1` for an object. */
function primitiveSize(value: unknown): number | undefined {
  switch (typeof value) {
    case 'string':
      return 16 + value.length;
    case 'number':
    case 'boolean':
    case 'undefined':
    case 'bigint':
      return 8;
    case 'symbol':
    case 'function':
      return undefined;
    default:
      return value === null ? 8 : -1;
  }
}

/**
 * Approximate bytes a structured clone of `value` costs, or `undefined` when it is over
 * `limit` or would not come back the same: functions, symbols and class instances (a clone
 * loses their prototype). Stops walking as soon as it passes `limit`, so it costs at most what
 * it allows. Getters and proxies of guest objects may run: call it inside the worker.
 * Primitives inside arrays, objects, maps and sets are sized where they are found, so an array
 * of a million strings costs one pass over it.
 */
export function estimateCloneSize(value: unknown, limit: number): number | undefined {
  const first = primitiveSize(value);
  if (first === undefined || first > limit) return undefined;
  if (first >= 0) return first;
  let total = 0;
  const seen = new Set<object>();
  const pending: object[] = [value as object];
  /** Sizes `entry` now when primitive, or queues it; false when it cannot be cloned. */
  const add = (entry: unknown): boolean => {
    const size = primitiveSize(entry);
    if (size === undefined) return false;
    if (size < 0) pending.push(entry as object);
    else total += size;
    return true;
  };
  while (pending.length > 0) {
    const item = pending.pop() as object;
    if (seen.has(item)) continue;
    seen.add(item);
    if (!plainPrototypes.has(Object.getPrototypeOf(item))) return undefined;
    total += 32;
    if (total > limit) return undefined;
    if (item instanceof ArrayBuffer) {
      total += item.byteLength;
    } else if (ArrayBuffer.isView(item)) {
      total += item.byteLength;
    } else if (item instanceof Map) {
      for (const [key, entry] of item) {
        if (!add(key) || !add(entry) || total > limit) return undefined;
      }
    } else if (item instanceof Set) {
      for (const entry of item) if (!add(entry) || total > limit) return undefined;
    } else if (Array.isArray(item)) {
      total += 8 * item.length;
      if (total > limit) return undefined;
      for (const entry of item) if (!add(entry) || total > limit) return undefined;
    } else if (!(item instanceof Date || item instanceof RegExp)) {
      for (const key of Object.keys(item)) {
        total += 16 + key.length;
        if (!add((item as Record<string, unknown>)[key]) || total > limit) return undefined;
      }
    }
    if (total > limit) return undefined;
  }
  return total;
}
