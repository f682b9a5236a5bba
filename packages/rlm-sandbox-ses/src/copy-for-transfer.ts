import { types } from 'node:util';

/** Prototypes whose instances a structured clone brings back with the same prototype. */
const plainPrototypes = new Set<object | null>([
  null,
  Object.prototype,
  Array.prototype,
  Map.prototype,
  Set.prototype,
  Date.prototype,
  RegExp.prototype,
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

/** The error constructors a clone keeps, by prototype; other errors come back as `Error`. */
const errorConstructors = new Map<object, ErrorConstructor>(
  [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError].map(
    (errorClass) => [errorClass.prototype, errorClass as ErrorConstructor],
  ),
);

/** Reads a built-in getter on any receiver, whatever own properties the receiver defines. */
function builtInGetter(prototype: object, name: string): (receiver: object) => unknown {
  const get = Object.getOwnPropertyDescriptor(prototype, name)?.get;
  if (get === undefined) throw new Error(`no getter ${name}`);
  return (receiver) => Reflect.apply(get, receiver, []);
}

const arrayBufferByteLength = builtInGetter(ArrayBuffer.prototype, 'byteLength');
const typedArrayBuffer = builtInGetter(Object.getPrototypeOf(Uint8Array.prototype), 'buffer');
const dataViewBuffer = builtInGetter(DataView.prototype, 'buffer');
const regExpSource = builtInGetter(RegExp.prototype, 'source');
const { entries: mapEntries } = Map.prototype;
const { values: setValues } = Set.prototype;
const { valueOf: stringValueOf } = String.prototype;

/** What {@link copyForTransfer} made. */
export type TransferCopy =
  /** `value`: the copy; `bytes`: about what its structured clone takes (see the function). */
  | { readonly ok: true; readonly value: unknown; readonly bytes: number }
  | { readonly ok: false; readonly tooLarge: true }
  /** `problem`: what does not clone, in words: `a function`. */
  | { readonly ok: false; readonly tooLarge: false; readonly problem: string };

/** Options of {@link copyForTransfer}. */
export interface TransferCopyOptions {
  /**
   * Copy class instances as plain objects (their own enumerable properties), as a structured
   * clone does, instead of refusing them. Default false: a snapshot refuses what would not come
   * back the same.
   */
  readonly acceptInstances?: boolean;
}

const tooLarge: TransferCopy = { ok: false, tooLarge: true };

/** Bytes a primitive clones to (a character counted as one byte); `undefined` for an object. */
function primitiveSize(value: unknown): number | undefined {
  switch (typeof value) {
    case 'string':
      return 16 + value.length;
    case 'number':
    case 'boolean':
    case 'undefined':
    case 'bigint':
      return 8;
    default:
      return value === null ? 8 : undefined;
  }
}

/** Why an object that is not plain data does not clone, or `undefined` when it may. */
function objectProblem(item: object): string | undefined {
  if (typeof item === 'function') return 'a function';
  if (types.isProxy(item)) return 'a proxy';
  if (types.isPromise(item)) return 'a promise (await it first)';
  if (types.isSymbolObject(item)) return 'a symbol';
  if (types.isWeakMap(item) || types.isWeakSet(item)) return 'a weak collection';
  if (types.isGeneratorObject(item) || types.isMapIterator(item) || types.isSetIterator(item)) {
    return 'an iterator';
  }
  if (types.isModuleNamespaceObject(item)) return 'a module namespace';
  return undefined;
}

/**
 * A copy of `value` made of plain data, and about how many bytes its structured clone takes,
 * known before anything is cloned: V8's serializer copies an object reached twice once, but a
 * string in full at every place it appears (one 1 MiB string referenced 4,500 times clones to
 * 4.5 GiB), so strings are counted at every occurrence; a character counts one byte (two-byte
 * strings clone to twice that: check the clone's length when it must be exact).
 *
 * Every getter and proxy trap of the value runs here, once: the copy has none, so cloning it
 * runs no guest code and takes what was counted. Shared and cyclic objects stay shared in the
 * copy; strings, ArrayBuffers, typed arrays, dates, regexps and boxed primitives are kept as
 * they are (a clone reads only their internal slots). Refuses, without walking further, a value
 * over `limit` and what does not clone: functions, symbols, proxies, promises, weak
 * collections, iterators, and (unless `acceptInstances`) class instances. Stops as soon as the
 * count passes `limit`, so it costs at most what it allows. Call it inside the worker.
 *
 * @throws what a getter or a trap of the value throws
 */
export function copyForTransfer(
  value: unknown,
  limit: number,
  options: TransferCopyOptions = {},
): TransferCopy {
  const first = primitiveSize(value);
  if (first !== undefined) return first > limit ? tooLarge : { ok: true, value, bytes: first };
  if (typeof value === 'symbol') return { ok: false, tooLarge: false, problem: 'a symbol' };
  let total = 0;
  let problem: string | undefined;
  /** Originals and their copies, so that a shared object is copied (and counted) once. */
  const copies = new Map<object, unknown>();
  /** Originals whose copy still has to be filled. */
  const unfilled: object[] = [];

  /** The copy of `item` (counted, queued to fill), or `undefined` with `problem` set. */
  const copyOf = (item: object): unknown => {
    const known = copies.get(item);
    if (known !== undefined) return known;
    problem = objectProblem(item);
    if (problem !== undefined) return undefined;
    const prototype = Object.getPrototypeOf(item) as object | null;
    total += 32;
    let copy: unknown;
    if (types.isNativeError(item)) {
      const message = Object.getOwnPropertyDescriptor(item, 'message')?.value;
      const text = typeof message === 'string' ? message : '';
      total += 16 + text.length;
      copy = new (errorConstructors.get(prototype as object) ?? Error)(text);
    } else if (!options.acceptInstances && !plainPrototypes.has(prototype)) {
      problem = 'a class instance';
      return undefined;
    } else if (types.isArrayBuffer(item)) {
      total += arrayBufferByteLength(item) as number;
      copy = item;
    } else if (types.isArrayBufferView(item)) {
      // A clone copies the whole buffer a view looks at, once for every view of it.
      const buffer = (
        types.isDataView(item) ? dataViewBuffer(item) : typedArrayBuffer(item)
      ) as object;
      if (copyOf(buffer) === undefined) return undefined;
      copy = item;
    } else if (types.isDate(item)) {
      copy = item;
    } else if (types.isRegExp(item)) {
      total += 16 + (regExpSource(item) as string).length;
      copy = item;
    } else if (types.isBoxedPrimitive(item)) {
      total += types.isStringObject(item) ? 16 + Reflect.apply(stringValueOf, item, []).length : 8;
      copy = item;
    } else if (Array.isArray(item)) {
      const { length } = item;
      total += 8 * length;
      if (total > limit) return undefined;
      // An array without holes is copied by push, so that it stays packed: V8 serialises a
      // holey array index by index (about twice the bytes, and slower both ways), and a copy
      // made with holes, or filled by index, at one code site makes the later ones holey too.
      copy = hasHoles(item) ? new Array(length) : [];
      unfilled.push(item);
    } else if (types.isMap(item)) {
      copy = new Map();
      unfilled.push(item);
    } else if (types.isSet(item)) {
      copy = new Set();
      unfilled.push(item);
    } else {
      copy = Object.create(null);
      unfilled.push(item);
    }
    copies.set(item, copy);
    return copy;
  };

  /** The copy of one entry, counted; `undefined` with `problem` set when it does not clone. */
  const entry = (item: unknown): { copy: unknown } | undefined => {
    const size = primitiveSize(item);
    if (size !== undefined) {
      total += size;
      return { copy: item };
    }
    if (typeof item === 'symbol') {
      problem = 'a symbol';
      return undefined;
    }
    const copy = copyOf(item as object);
    return copy === undefined ? undefined : { copy };
  };

  const root = copyOf(value as object);
  for (let item = unfilled.pop(); root !== undefined && item !== undefined; item = unfilled.pop()) {
    if (total > limit) break;
    const copy = copies.get(item);
    if (Array.isArray(item) && (copy as unknown[]).length === 0) {
      // No holes (see copyOf): pushed in order.
      const target = copy as unknown[];
      const { length } = item;
      for (let index = 0; index < length; index += 1) {
        const element = item[index];
        // Primitives, the bulk of large arrays, without the allocation `entry` makes.
        const size = primitiveSize(element);
        if (size !== undefined) {
          total += size;
          if (total > limit) break;
          target.push(element);
          continue;
        }
        const found = entry(element);
        if (found === undefined || total > limit) break;
        target.push(found.copy);
      }
    } else if (Array.isArray(item)) {
      const target = copy as unknown[];
      for (let index = 0; index < target.length; index += 1) {
        const element = item[index];
        const found = entry(element);
        if (found === undefined || total > limit) break;
        // A hole stays a hole (the copy starts with holes), so sparse arrays come back sparse.
        if (element !== undefined || index in item) target[index] = found.copy;
      }
    } else if (types.isMap(item)) {
      const target = copy as Map<unknown, unknown>;
      const iterator = Reflect.apply(mapEntries, item, []) as IterableIterator<[unknown, unknown]>;
      for (let step = iterator.next(); !step.done; step = iterator.next()) {
        const key = entry(step.value[0]);
        const found = key && entry(step.value[1]);
        if (key === undefined || found === undefined || total > limit) break;
        target.set(key.copy, found.copy);
      }
    } else if (types.isSet(item)) {
      const target = copy as Set<unknown>;
      const iterator = Reflect.apply(setValues, item, []) as IterableIterator<unknown>;
      for (let step = iterator.next(); !step.done; step = iterator.next()) {
        const found = entry(step.value);
        if (found === undefined || total > limit) break;
        target.add(found.copy);
      }
    } else {
      const target = copy as Record<string, unknown>;
      for (const key of Object.keys(item)) {
        total += 16 + key.length;
        const found = total > limit ? undefined : entry((item as Record<string, unknown>)[key]);
        if (found === undefined || total > limit) break;
        target[key] = found.copy;
      }
    }
    if (problem !== undefined) break;
  }
  if (problem !== undefined) return { ok: false, tooLarge: false, problem };
  if (root === undefined || total > limit) return tooLarge;
  return { ok: true, value: root, bytes: total };
}

/** Whether an array has a hole (an index below its length with no element). */
function hasHoles(array: readonly unknown[]): boolean {
  for (let index = 0; index < array.length; index += 1) if (!(index in array)) return true;
  return false;
}
