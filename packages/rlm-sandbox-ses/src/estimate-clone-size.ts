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

/** What {@link estimateCloneSize} found. */
export type CloneEstimate =
  | { readonly ok: true; readonly bytes: number }
  /** `tooLarge`: over the limit; otherwise the value does not clone (or not the same). */
  | { readonly ok: false; readonly tooLarge: boolean };

/** Options of {@link estimateCloneSize}. */
export interface CloneEstimateOptions {
  /**
   * Accept class instances (a clone copies their own properties into plain objects) instead of
   * refusing them. Default false: a snapshot refuses what would not come back the same.
   */
  readonly acceptInstances?: boolean;
}

const tooLarge: CloneEstimate = { ok: false, tooLarge: true };
const notCloneable: CloneEstimate = { ok: false, tooLarge: false };

/**
 * Approximate bytes a structured clone of `value` costs, before anything is cloned: V8's
 * serializer copies an object reached twice once, but a string in full at each place it
 * appears, so strings are counted at every occurrence (1 MiB referenced 4,500 times costs
 * 4.5 GiB). Refuses what is over `limit`, and functions, symbols and (unless
 * `acceptInstances`) class instances, whose clone loses the prototype. Stops walking as soon
 * as it passes `limit`, so it costs at most what it allows. Getters and proxies of guest
 * objects may run and throw: call it inside the worker. Primitives inside arrays, objects,
 * maps and sets are sized where they are found, so an array of a million strings costs one
 * pass over it.
 */
export function estimateCloneSize(
  value: unknown,
  limit: number,
  options: CloneEstimateOptions = {},
): CloneEstimate {
  const first = primitiveSize(value);
  if (first === undefined) return notCloneable;
  if (first > limit) return tooLarge;
  if (first >= 0) return { ok: true, bytes: first };
  let total = 0;
  const seen = new Set<object>();
  const pending: object[] = [value as object];
  let cloneable = true;
  /** Sizes `entry` now when primitive, or queues it; false when it cannot be cloned. */
  const add = (entry: unknown): boolean => {
    const size = primitiveSize(entry);
    if (size === undefined) {
      cloneable = false;
      return false;
    }
    if (size < 0) pending.push(entry as object);
    else total += size;
    return true;
  };
  const refuse = () => (cloneable ? tooLarge : notCloneable);
  while (pending.length > 0) {
    const item = pending.pop() as object;
    if (seen.has(item)) continue;
    seen.add(item);
    if (!options.acceptInstances && !plainPrototypes.has(Object.getPrototypeOf(item))) {
      return notCloneable;
    }
    total += 32;
    if (total > limit) return tooLarge;
    if (item instanceof ArrayBuffer) {
      total += item.byteLength;
    } else if (ArrayBuffer.isView(item)) {
      total += item.byteLength;
    } else if (item instanceof Map) {
      for (const [key, entry] of item) {
        if (!add(key) || !add(entry) || total > limit) return refuse();
      }
    } else if (item instanceof Set) {
      for (const entry of item) if (!add(entry) || total > limit) return refuse();
    } else if (Array.isArray(item)) {
      total += 8 * item.length;
      if (total > limit) return tooLarge;
      for (const entry of item) if (!add(entry) || total > limit) return refuse();
    } else if (!(item instanceof Date || item instanceof RegExp)) {
      for (const key of Object.keys(item)) {
        total += 16 + key.length;
        if (!add((item as Record<string, unknown>)[key]) || total > limit) return refuse();
      }
    }
    if (total > limit) return tooLarge;
  }
  return { ok: true, bytes: total };
}
