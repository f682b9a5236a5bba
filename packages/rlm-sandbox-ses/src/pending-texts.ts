/**
 * Texts the host set as UTF-8 bytes (a `Utf8Text` context), kept undecoded in the worker until
 * they are needed: the runtime decodes them before anything reads variables (an execution, a
 * `get`, a snapshot), and on its own once no message came for a moment, while the host waits
 * for the model. A listing shows a pending text from its length and its first characters. The
 * cell keeps a plain data property throughout (an accessor would slow every read of it in model
 * code's loops); model code only ever sees the string.
 */

/** A variable's cell: rewritten model code reads and writes its `v`. */
export interface TextCell {
  v: unknown;
}

interface Pending {
  readonly bytes: Uint8Array;
  readonly length: number;
  readonly onDecoded: (text: string) => void;
}

/** How long the worker waits without a message before it decodes what is pending. */
const idleMs = 20;
/** Bytes decoded for a listing's preview (the preview keeps about 100 characters). */
const previewBytes = 1024;

export class PendingTexts {
  readonly #pending = new Map<TextCell, Pending>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `cell` is to hold the text of `bytes` (`length` UTF-16 code units); until it is decoded it
   * holds `''`. `onDecoded` hears the string once `cell.v` is set to it.
   */
  define(
    cell: TextCell,
    bytes: Uint8Array,
    length: number,
    onDecoded: (text: string) => void,
  ): void {
    cell.v = '';
    this.#pending.set(cell, { bytes, length, onDecoded });
  }

  /** `cell` gets another value: its text, if still pending, is dropped. */
  forget(cell: TextCell): void {
    this.#pending.delete(cell);
  }

  /** Whether `cell` holds a text not decoded yet. */
  has(cell: TextCell): boolean {
    return this.#pending.has(cell);
  }

  /** For a cell still pending: its text's length and first characters (a preview's worth). */
  peek(cell: TextCell): { readonly length: number; readonly head: string } | undefined {
    const pending = this.#pending.get(cell);
    if (pending === undefined) return undefined;
    const { bytes, length } = pending;
    let end = Math.min(bytes.length, previewBytes);
    // End on a character's first byte.
    while (end > 0 && end < bytes.length && ((bytes[end] as number) & 0xc0) === 0x80) end--;
    return { length, head: new TextDecoder().decode(bytes.subarray(0, end)) };
  }

  /** Decodes every pending text into its cell; the same bytes set for several names once. */
  decodeAll(): void {
    if (this.#pending.size === 0) return;
    const decoded = new Map<Uint8Array, string>();
    for (const [cell, { bytes, onDecoded }] of this.#pending) {
      const text = decoded.get(bytes) ?? new TextDecoder().decode(bytes);
      decoded.set(bytes, text);
      cell.v = text;
      onDecoded(text);
    }
    this.#pending.clear();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Decodes what is pending once no message came for a moment; call at each message. */
  scheduleIdleDecode(): void {
    if (this.#pending.size === 0) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.decodeAll();
    }, idleMs);
  }
}
