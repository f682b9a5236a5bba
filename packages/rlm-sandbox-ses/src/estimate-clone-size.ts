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

/**
 * Approximate bytes a structured clone of `value` costs, or `undefined` when it is over
 * `limit` or would not come back the same: functions, symbols and class instances (a clone
 * loses their prototype). Stops walking as soon as it passes `limit`, so it costs at most what
 * it allows. Getters and proxies of guest objects may run: call it inside the worker.
 */
export function estimateCloneSize(value: unknown, limit: number): number | undefined {
  let total = 0;
  const seen = new Set<object>();
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    switch (typeof item) {
      case 'string':
        total += 16 + item.length;
        break;
      case 'number':
      case 'boolean':
      case 'undefined':
      case 'bigint':
        total += 8;
        break;
      case 'symbol':
      case 'function':
        return undefined;
      case 'object': {
        if (item === null) {
          total += 8;
          break;
        }
        if (seen.has(item)) break;
        seen.add(item);
        if (!plainPrototypes.has(Object.getPrototypeOf(item))) return undefined;
        total += 32;
        if (total > limit) return undefined;
        if (item instanceof ArrayBuffer) {
          total += item.byteLength;
        } else if (ArrayBuffer.isView(item)) {
          total += item.byteLength;
        } else if (item instanceof Map) {
          for (const [key, entry] of item) pending.push(key, entry);
        } else if (item instanceof Set) {
          for (const entry of item) pending.push(entry);
        } else if (Array.isArray(item)) {
          total += 8 * item.length;
          if (total > limit) return undefined;
          for (const entry of item) pending.push(entry);
        } else if (!(item instanceof Date || item instanceof RegExp)) {
          for (const key of Object.keys(item)) {
            total += 16 + key.length;
            if (total > limit) return undefined;
            pending.push((item as Record<string, unknown>)[key]);
          }
        }
        break;
      }
    }
    if (total > limit) return undefined;
  }
  return total;
}
