import { createHash, type Hash } from 'node:crypto';
import { textSlices } from './text-slices.js';
import { Utf8Text } from './utf8-text.js';

/** Small pieces are batched into one `update` call of about this many characters. */
const batchChars = 64 * 1024;

/** Digests of the `Utf8Text` contexts hashed so far: a context is hashed once per run. */
const utf8TextDigests = new WeakMap<Utf8Text, string>();

/**
 * The SHA-256 (64 hex characters) of a context: a string, a `Utf8Text` (the same digest as
 * its string), a `Uint8Array`, or arrays and plain objects of those, numbers, booleans, `null`,
 * `undefined` and bigints. Streams through the hash without serializing: a 256 MB string is
 * read once and never copied whole. Types are tagged and lengths prefixed, so `"1"` and `1`, or
 * `["ab"]` and `["a", "b"]`, differ; object keys are sorted, so key order does not matter.
 * Throws for other values and for cycles (`TypeError`).
 */
export function hashContext(context: unknown): string {
  const text = Utf8Text.isInstance(context) ? context : undefined;
  const known = text && utf8TextDigests.get(text);
  if (known !== undefined) return known;
  const writer = new HashWriter(createHash('sha256'));
  writer.value(context, new Set());
  const digest = writer.digest();
  if (text) utf8TextDigests.set(text, digest);
  return digest;
}

class HashWriter {
  readonly #hash: Hash;
  #pending = '';

  constructor(hash: Hash) {
    this.#hash = hash;
  }

  value(value: unknown, ancestors: Set<object>): void {
    switch (typeof value) {
      case 'string':
        this.#text(`s${value.length}:`);
        this.#text(value);
        return;
      case 'number':
        this.#text(`n${Object.is(value, -0) ? '-0' : String(value)};`);
        return;
      case 'boolean':
        this.#text(value ? 't;' : 'f;');
        return;
      case 'bigint':
        this.#text(`b${value};`);
        return;
      case 'undefined':
        this.#text('u;');
        return;
      case 'object':
        this.#object(value, ancestors);
        return;
      default:
        throw new TypeError(
          `@rlm/core: cannot hash a context holding a ${typeof value}; contexts are text, bytes, or JSON-like data`,
        );
    }
  }

  digest(): string {
    this.#flush();
    return this.#hash.digest('hex');
  }

  #object(value: object | null, ancestors: Set<object>): void {
    if (value === null) {
      this.#text('z;');
      return;
    }
    if (Utf8Text.isInstance(value)) {
      // As its string: the tag and length, then the string's UTF-8 bytes, which these are.
      this.#text(`s${value.length}:`);
      this.#flush();
      this.#hash.update(value.bytes);
      return;
    }
    if (value instanceof Uint8Array) {
      this.#text(`y${value.byteLength}:`);
      this.#flush();
      this.#hash.update(value);
      return;
    }
    if (ancestors.has(value)) {
      throw new TypeError('@rlm/core: cannot hash a context that contains itself');
    }
    ancestors.add(value);
    if (Array.isArray(value)) {
      this.#text(`[${value.length}:`);
      for (const item of value) {
        this.value(item, ancestors);
      }
      this.#text(']');
    } else if (isPlainObject(value)) {
      const keys = Object.keys(value).sort();
      this.#text(`{${keys.length}:`);
      for (const key of keys) {
        this.value(key, ancestors);
        this.value(value[key], ancestors);
      }
      this.#text('}');
    } else {
      throw new TypeError(
        `@rlm/core: cannot hash a context holding a ${value.constructor?.name ?? 'object'}; contexts are text, bytes, or JSON-like data`,
      );
    }
    ancestors.delete(value);
  }

  #text(text: string): void {
    if (text.length >= batchChars) {
      this.#flush();
      updateWithText(this.#hash, text);
      return;
    }
    this.#pending += text;
    if (this.#pending.length >= batchChars) {
      this.#flush();
    }
  }

  #flush(): void {
    if (this.#pending.length > 0) {
      this.#hash.update(this.#pending, 'utf8');
      this.#pending = '';
    }
  }
}

/** Characters hashed per `update` call: bounds the UTF-8 copy Node makes of each slice. */
const hashSliceChars = 4 * 1024 * 1024;

/** Feeds text to a hash as UTF-8, in slices, without one UTF-8 copy of the whole string. */
export function updateWithText(hash: Hash, text: string): void {
  for (const slice of textSlices(text, hashSliceChars)) {
    hash.update(slice, 'utf8');
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
