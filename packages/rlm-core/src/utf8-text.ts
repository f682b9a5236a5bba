import { isAscii, isUtf8 } from 'node:buffer';

const brand = Symbol.for('@rlm/core.Utf8Text');
const byteOrderMark = [0xef, 0xbb, 0xbf] as const;

/**
 * UTF-16 code units of valid UTF-8 `bytes`: one per byte that starts a character, two for a
 * four-byte character. ASCII (most large texts) is one unit a byte, found by a native scan;
 * otherwise four bytes at a time where they are aligned.
 */
function utf16Length(bytes: Uint8Array): number {
  if (isAscii(bytes)) return bytes.length;
  let units = 0;
  let index = 0;
  const end = bytes.length;
  const unitsOf = (byte: number) => ((byte & 0xc0) === 0x80 ? 0 : byte >= 0xf0 ? 2 : 1);
  while (index < end && (bytes.byteOffset + index) % 4 !== 0)
    units += unitsOf(bytes[index++] as number);
  const words = Math.floor((end - index) / 4);
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + index, words);
    for (let word = 0; word < words; word++) {
      const value = view[word] as number;
      // Bit 7 of each byte: set for a continuation byte (10xxxxxx), and for a four-byte
      // character's first byte (11110xxx); summed by one multiplication into the top byte.
      const continuations = value & ~(value << 1) & 0x80808080;
      const fourByteStarts = value & (value << 1) & (value << 2) & (value << 3) & 0x80808080;
      units +=
        4 -
        (Math.imul(continuations >>> 7, 0x01010101) >>> 24) +
        (Math.imul(fourByteStarts >>> 7, 0x01010101) >>> 24);
    }
    index += words * 4;
  }
  while (index < end) units += unitsOf(bytes[index++] as number);
  return units;
}

/**
 * A text held as its UTF-8 bytes: a large context read from a file, handed to the sandbox as
 * those bytes (shared, not copied, when they live in a `SharedArrayBuffer`) and decoded there,
 * never on the host. Everywhere else it stands for its string: the prompt describes it as a
 * string of `length` characters, `hashContext` gives the string's digest (a run resumes whichever
 * form its context came in), and model code sees the string. A sandbox that does not take it
 * (`Sandbox.acceptsUtf8Text`) gets `text()`.
 */
export class Utf8Text {
  /** Valid UTF-8, without a byte order mark. Not to be changed. */
  readonly bytes: Uint8Array;
  /** The string's length: UTF-16 code units. */
  readonly length: number;
  #text: string | undefined;

  private constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.length = utf16Length(bytes);
    Object.defineProperty(this, brand, { value: true });
  }

  /**
   * The text of `bytes`, strict UTF-8 with a leading byte order mark dropped, or `undefined`
   * when they are not valid UTF-8. Keeps `bytes` (a view, no copy): they must not change after.
   */
  static fromBytes(bytes: Uint8Array): Utf8Text | undefined {
    if (!isUtf8(bytes)) return undefined;
    const marked = byteOrderMark.every((byte, index) => bytes[index] === byte);
    return new Utf8Text(marked ? bytes.subarray(byteOrderMark.length) : bytes);
  }

  /** True for a `Utf8Text`, also of another copy of this package. */
  static isInstance(value: unknown): value is Utf8Text {
    return typeof value === 'object' && value !== null && brand in value;
  }

  /** The string, decoded on the first call and kept. */
  text(): string {
    this.#text ??= new TextDecoder().decode(this.bytes);
    return this.#text;
  }

  /** The string's first `count` code units, decoding no more bytes than they can take. */
  head(count: number): string {
    if (this.#text !== undefined) return this.#text.slice(0, count);
    const { bytes } = this;
    // A code unit takes at most three bytes, and the last one may be the first half of a
    // four-byte character; end on a character's first byte.
    let end = Math.min(bytes.length, Math.max(0, count) * 3 + 3);
    while (end > 0 && end < bytes.length && ((bytes[end] as number) & 0xc0) === 0x80) end--;
    return new TextDecoder().decode(bytes.subarray(0, end)).slice(0, count);
  }

  /** The string's last `count` code units, decoding no more bytes than they can take. */
  tail(count: number): string {
    if (count <= 0) return '';
    if (this.#text !== undefined) return this.#text.slice(-count);
    const { bytes } = this;
    // Start on a character's first byte, far enough back to hold `count` code units.
    let start = Math.max(0, bytes.length - count * 3 - 3);
    while (start > 0 && ((bytes[start] as number) & 0xc0) === 0x80) start--;
    return new TextDecoder().decode(bytes.subarray(start)).slice(-count);
  }

  /** The string: a `Utf8Text` converted to a primitive is its text. */
  toString(): string {
    return this.text();
  }
}
