import { createHash } from 'node:crypto';
import { types } from 'node:util';
import { copyForTransfer } from './copy-for-transfer.js';
import { deserializeValue, serializeValue } from './serialize-value.js';

/**
 * Checkpoint bytes made in pieces start with these six bytes: a zero (V8's serialization
 * format starts with 0xFF, so the two never mix), `RLMP`, and the kind of the value.
 */
const piecesMagic = [0x00, 0x52, 0x4c, 0x4d, 0x50] as const;
const kinds = { array: 1, map: 2, set: 3, string: 4 } as const;
type PiecesKind = (typeof kinds)[keyof typeof kinds];

/** Elements (array, set), entries (map) or characters (string) in one piece. */
export const pieceElements = 8192;
const pieceCharacters = 262_144;

const mapEntries = Map.prototype.entries;
const setValues = Set.prototype.values;

/** What {@link serializeInPieces} ends with. */
export type PiecesResult =
  /** `parts`: the bytes, in order (join them); `digest`: SHA-256 hex of them joined. */
  | { readonly ok: true; readonly parts: Uint8Array[]; readonly digest: string }
  | { readonly ok: false; readonly reason: string; readonly tooLarge: boolean };

/**
 * Serialises `value` for a checkpoint, yielding between pieces so that the caller can let other
 * work in (and abandon the generator when the value may have changed meanwhile). An array,
 * Map or Set of more than {@link pieceElements} primitives, or a string of more than 262,144
 * characters, is serialised a piece at a time: its bytes are a small header and each piece's
 * structured clone, which {@link deserializeCheckpointBytes} joins back into one value of the
 * same kind. Any other value (and one of those that turns out to hold an object, a hole or a
 * symbol) is copied without running guest code twice (see {@link copyForTransfer}) and
 * serialised whole, in V8's format, in one go. Nothing is half-made: a value over `maxBytes`
 * ends as `tooLarge`.
 */
export function* serializeInPieces(
  value: unknown,
  maxBytes: number,
): Generator<void, PiecesResult> {
  const kind = piecesKindOf(value);
  if (kind === undefined) return serializeWhole(value, maxBytes);
  // Hashed as the pieces are made, a slice at a time.
  const hash = createHash('sha256');
  const parts: Uint8Array[] = [];
  let total = 0;
  const add = (bytes: Uint8Array): boolean => {
    total += bytes.byteLength;
    if (total > maxBytes) return false;
    hash.update(bytes);
    parts.push(bytes);
    return true;
  };
  const addPiece = (piece: unknown): boolean => {
    const bytes = serializeValue(piece);
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, bytes.byteLength, true);
    return add(length) && add(bytes);
  };
  const tooLarge = tooLargeResult(maxBytes);
  add(Uint8Array.from([...piecesMagic, kind]));
  const pieces = piecesOf(value, kind);
  for (let piece = nextPiece(pieces); !piece.done; piece = nextPiece(pieces)) {
    if ('threw' in piece) return readingThrew(piece.threw);
    // An object, a hole or a symbol: these do not split safely; the whole value is made at once.
    if (piece.value === undefined) return serializeWhole(value, maxBytes);
    // Known too large before it is serialised: a piece of 8,192 references to one long string
    // would otherwise be cloned in full (gigabytes) only to be refused.
    if (total + fewestBytes(piece.value) > maxBytes || !addPiece(piece.value)) return tooLarge;
    yield;
  }
  return { ok: true, parts, digest: hash.digest('hex') };
}

/** The next piece, or what reading it threw (an array element's getter is guest code). */
function nextPiece(
  pieces: Generator<unknown[] | string | undefined>,
):
  | IteratorResult<unknown[] | string | undefined>
  | { readonly done: false; readonly threw: unknown } {
  try {
    return pieces.next();
  } catch (error) {
    return { done: false, threw: error };
  }
}

/** SHA-256 of `bytes`, in lowercase hex: the id the artifact store gives the same bytes. */
export function digestOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The value {@link serializeInPieces} made `bytes` of (V8's format or pieces). */
export function deserializeCheckpointBytes(bytes: Uint8Array): unknown {
  const reading = readCheckpointBytes(bytes);
  let step = reading.next();
  while (!step.done) step = reading.next();
  return step.value;
}

/**
 * Reads what {@link serializeInPieces} made, yielding after each piece so that the caller can
 * let other work in; ends with the value. Throws on bytes it did not make.
 */
export function* readCheckpointBytes(bytes: Uint8Array): Generator<void, unknown> {
  if (bytes[0] !== piecesMagic[0]) return deserializeValue(bytes);
  if (bytes.byteLength < 6 || piecesMagic.some((byte, index) => bytes[index] !== byte)) {
    throw new Error('not checkpoint bytes');
  }
  const kind = bytes[5];
  if (kind === undefined || !Object.values(kinds).includes(kind as PiecesKind)) {
    throw new Error(`an unknown kind of pieces (${kind})`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const texts: string[] = [];
  const array: unknown[] = [];
  const set = new Set<unknown>();
  const map = new Map<unknown, unknown>();
  for (let offset = 6; offset < bytes.byteLength; ) {
    if (offset + 4 > bytes.byteLength) throw new Error('a piece is cut short');
    const length = view.getUint32(offset, true);
    offset += 4;
    if (offset + length > bytes.byteLength) throw new Error('a piece is cut short');
    const piece = deserializeValue(bytes.subarray(offset, offset + length));
    offset += length;
    if (kind === kinds.string) {
      if (typeof piece !== 'string') throw new Error('a bad piece');
      texts.push(piece);
    } else {
      if (!Array.isArray(piece)) throw new Error('a bad piece');
      if (kind === kinds.array) for (const element of piece) array.push(element);
      else if (kind === kinds.set) for (const element of piece) set.add(element);
      else {
        if (piece.length % 2 !== 0) throw new Error('a bad piece');
        for (let index = 0; index < piece.length; index += 2)
          map.set(piece[index], piece[index + 1]);
      }
    }
    yield;
  }
  switch (kind) {
    case kinds.string:
      return texts.join('');
    case kinds.array:
      return array;
    case kinds.set:
      return set;
    default:
      return map;
  }
}

/** How `value` is made in pieces, or `undefined` when it is made whole. */
function piecesKindOf(value: unknown): PiecesKind | undefined {
  if (typeof value === 'string') return value.length > pieceCharacters ? kinds.string : undefined;
  if (typeof value !== 'object' || value === null || types.isProxy(value)) return undefined;
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (Array.isArray(value) && prototype === Array.prototype) {
    return value.length > pieceElements ? kinds.array : undefined;
  }
  if (types.isMap(value) && prototype === Map.prototype) {
    return (value as Map<unknown, unknown>).size > pieceElements ? kinds.map : undefined;
  }
  if (types.isSet(value) && prototype === Set.prototype) {
    return (value as Set<unknown>).size > pieceElements ? kinds.set : undefined;
  }
  return undefined;
}

/**
 * The pieces of `value`, each an array of primitives (a string's: a string); `undefined` as
 * soon as an element is not a primitive, is a symbol, or is a hole (an array's).
 */
function* piecesOf(value: unknown, kind: PiecesKind): Generator<unknown[] | string | undefined> {
  if (kind === kinds.string) {
    const text = value as string;
    for (let start = 0; start < text.length; start += pieceCharacters) {
      yield text.slice(start, start + pieceCharacters);
    }
    return;
  }
  if (kind === kinds.array) {
    const array = value as unknown[];
    // Read once: the pieces are made of the elements there were when the snapshot began.
    const { length } = array;
    for (let start = 0; start < length; start += pieceElements) {
      const end = Math.min(start + pieceElements, length);
      const piece: unknown[] = [];
      for (let index = start; index < end; index += 1) {
        const element = array[index];
        if (!isPlainPrimitive(element) || (element === undefined && !(index in array))) {
          yield undefined;
          return;
        }
        piece.push(element);
      }
      yield piece;
    }
    return;
  }
  const iterator = (
    kind === kinds.map ? Reflect.apply(mapEntries, value, []) : Reflect.apply(setValues, value, [])
  ) as Iterator<unknown>;
  for (let step = iterator.next(); !step.done; ) {
    const piece: unknown[] = [];
    for (; !step.done && piece.length < pieceElements; step = iterator.next()) {
      if (kind === kinds.map) {
        const [key, entry] = step.value as [unknown, unknown];
        if (!isPlainPrimitive(key) || !isPlainPrimitive(entry)) {
          yield undefined;
          return;
        }
        piece.push(key, entry);
      } else {
        if (!isPlainPrimitive(step.value)) {
          yield undefined;
          return;
        }
        piece.push(step.value);
      }
    }
    yield piece;
  }
}

/** The fewest bytes a piece serialises to: a byte a character, a byte any other element. */
function fewestBytes(piece: unknown[] | string): number {
  if (typeof piece === 'string') return piece.length;
  let bytes = 0;
  for (const element of piece) bytes += typeof element === 'string' ? 1 + element.length : 1;
  return bytes;
}

/** A primitive a structured clone keeps (a symbol is not one). */
function isPlainPrimitive(value: unknown): boolean {
  return (
    value === null ||
    (typeof value !== 'object' && typeof value !== 'function' && typeof value !== 'symbol')
  );
}

function tooLargeResult(maxBytes: number): PiecesResult {
  return {
    ok: false,
    reason: `larger than the checkpoint limit of ${maxBytes} bytes`,
    tooLarge: true,
  };
}

/** `value` copied (see {@link copyForTransfer}) and serialised whole, in V8's format. */
function serializeWhole(value: unknown, maxBytes: number): PiecesResult {
  try {
    // The copy's count is an estimate (16 bytes a string where a clone takes a few, a character
    // one byte where a two-byte one takes two): it bounds the work at twice the cap, and the
    // clone's real length decides.
    const copy = copyForTransfer(value, maxBytes * 2);
    if (!copy.ok) {
      return copy.tooLarge
        ? tooLargeResult(maxBytes)
        : { ok: false, reason: copy.problem, tooLarge: false };
    }
    const bytes = serializeValue(copy.value);
    if (bytes.byteLength > maxBytes) return tooLargeResult(maxBytes);
    return { ok: true, parts: [bytes], digest: digestOf(bytes) };
  } catch (error) {
    return readingThrew(error);
  }
}

function readingThrew(error: unknown): PiecesResult {
  return {
    ok: false,
    reason: `reading it threw (${error instanceof Error ? error.message : String(error)})`,
    tooLarge: false,
  };
}
