/**
 * Collects the pieces of one split of a text and hands out one string per distinct piece.
 *
 * Splitting a 50 MiB text into words makes millions of strings, most of them repeats of a few
 * thousand words. Strings are values: which copy an array holds cannot be observed, only how
 * fast it is. One string per distinct word saves the allocations and the garbage collection of
 * the copies, and makes what model code does next (counting words in a `Map`, comparing them)
 * cheaper: a string's hash is computed once and kept on it, and equal strings are the same
 * object.
 *
 * The table is open-addressed, four 32-bit words a slot. A piece of up to 8 code units below
 * U+0100 (most words) is its own key: its units packed in two words, and its length; looking it
 * up reads one slot. A longer or wider piece is keyed by a hash, its length and a copy of its
 * units, compared unit by unit.
 *
 * Interning stops on its own where it does not pay: for long pieces, when most pieces are
 * distinct (log lines, identifiers), when the table is large, and for a piece whose probe
 * runs long (text made to collide).
 */

const longestInterned = 48;
const longestPacked = 8;
const trialPieces = 4096;
const mostDistinct = 1 << 20;
const longestProbe = 32;

/** Mixes the high bits of a key into the low ones, which pick the slot. */
function spread(key: number): number {
  const mixed = Math.imul(key ^ (key >>> 15), 0x2c1b3c6d);
  return mixed ^ (mixed >>> 12);
}

/** The key of a packed piece: `high` and `low` hold its units, a byte each. */
function packedKey(high: number, low: number, length: number): number {
  return Math.imul(high, 0x9e3779b1) ^ low ^ (length << 27);
}

export class PieceInterner {
  private readonly text: string;
  /**
   * Four words a slot. A packed piece: its first 4 units, the rest, its length, 1 + its index
   * in `strings`. Another piece: its hash, its offset in `units`, minus its length, 1 + its
   * index. An empty slot has 0 in its last word.
   */
  private slots = new Int32Array(4 * 1024);
  private mask = 1023;
  /** The units of the pieces interned that are not packed. */
  private units = new Uint16Array(1024);
  private unitsUsed = 0;
  private interned = 0;
  /** The interned strings, by the index their slot holds. */
  private readonly strings: string[] = [];
  /**
   * The pieces so far, in order. Built by push: after lockdown() an array with holes is slow
   * to fill (V8 must look for elements on the frozen prototypes at each store into a hole).
   */
  private readonly result: string[] = [];
  private interning = true;

  constructor(text: string) {
    this.text = text;
  }

  /** The number of pieces so far. */
  get count(): number {
    return this.result.length;
  }

  /** Appends `text.slice(start, end)`. */
  add(start: number, end: number): void {
    const length = end - start;
    this.push(
      this.interning && length <= longestInterned
        ? this.find(start, length)
        : this.text.slice(start, end),
    );
  }

  /**
   * Appends `text.slice(start, end)`, given what the caller gathered while it scanned the piece,
   * so that a short piece is not read a second time: `high` holds its first 4 code units, a byte
   * each, first unit highest, `low` the others the same way (only the last 4 count), and `units`
   * all its units or-ed together.
   */
  addScanned(start: number, end: number, high: number, low: number, units: number): void {
    const length = end - start;
    if (length > longestPacked || units > 0xff) this.add(start, end);
    else
      this.push(
        this.interning ? this.findPacked(start, length, high, low) : this.text.slice(start, end),
      );
  }

  /** The pieces, in order: the array itself, not a copy. */
  pieces(): string[] {
    return this.result;
  }

  private find(start: number, length: number): string {
    if (length > longestPacked) return this.findUnpacked(start, length);
    const { text } = this;
    let high = 0;
    let low = 0;
    let units = 0;
    for (let unit = 0; unit < length; unit++) {
      const code = text.charCodeAt(start + unit);
      units |= code;
      if (unit < 4) high = (high << 8) | code;
      else low = (low << 8) | code;
    }
    if (units > 0xff) return this.findUnpacked(start, length);
    return this.findPacked(start, length, high, low);
  }

  private findPacked(start: number, length: number, high: number, low: number): string {
    const { slots, mask } = this;
    let slot = spread(packedKey(high, low, length)) & mask;
    for (let probe = 0; probe < longestProbe; probe++) {
      const at = 4 * slot;
      const stored = slots[at + 3] as number;
      if (stored === 0) return this.intern(start, length, slot, high, low, length);
      if (slots[at] === high && slots[at + 1] === low && slots[at + 2] === length) {
        return this.strings[stored - 1] as string;
      }
      slot = (slot + 1) & mask;
    }
    return this.text.slice(start, start + length);
  }

  private push(piece: string): void {
    const { result } = this;
    result.push(piece);
    if (result.length === trialPieces && this.interned * 4 > trialPieces * 3) {
      this.interning = false;
    }
  }

  private findUnpacked(start: number, length: number): string {
    const { text, slots, mask } = this;
    let hash = 0;
    for (let unit = 0; unit < length; unit++) {
      hash = Math.imul(hash ^ text.charCodeAt(start + unit), 0x01000193);
    }
    let slot = spread(hash) & mask;
    for (let probe = 0; probe < longestProbe; probe++) {
      const at = 4 * slot;
      const stored = slots[at + 3] as number;
      if (stored === 0) {
        if (this.interned >= mostDistinct) return text.slice(start, start + length);
        const offset = this.copyUnits(start, length);
        return this.intern(start, length, slot, hash, offset, -length);
      }
      if (slots[at] === hash && slots[at + 2] === -length) {
        const units = this.units;
        const offset = slots[at + 1] as number;
        let unit = 0;
        while (unit < length && units[offset + unit] === text.charCodeAt(start + unit)) unit++;
        if (unit === length) return this.strings[stored - 1] as string;
      }
      slot = (slot + 1) & mask;
    }
    return text.slice(start, start + length);
  }

  /** Copies the units of `text.slice(start, start + length)` to `units`; returns the offset. */
  private copyUnits(start: number, length: number): number {
    const offset = this.unitsUsed;
    if (offset + length > this.units.length) {
      const grown = new Uint16Array(Math.max(this.units.length * 2, offset + length));
      grown.set(this.units);
      this.units = grown;
    }
    const { text, units } = this;
    for (let unit = 0; unit < length; unit++) units[offset + unit] = text.charCodeAt(start + unit);
    this.unitsUsed = offset + length;
    return offset;
  }

  private intern(
    start: number,
    length: number,
    slot: number,
    first: number,
    second: number,
    third: number,
  ): string {
    const piece = this.text.slice(start, start + length);
    if (this.interned >= mostDistinct) return piece;
    this.strings.push(piece);
    const at = 4 * slot;
    const { slots } = this;
    slots[at] = first;
    slots[at + 1] = second;
    slots[at + 2] = third;
    slots[at + 3] = this.strings.length;
    this.interned += 1;
    if (this.interned * 2 > this.mask) this.growSlots();
    return piece;
  }

  private growSlots(): void {
    const old = this.slots;
    const mask = this.mask * 2 + 1;
    const slots = new Int32Array(4 * (mask + 1));
    for (let at = 0; at < old.length; at += 4) {
      if (old[at + 3] === 0) continue;
      const first = old[at] as number;
      const third = old[at + 2] as number;
      const key = third >= 0 ? packedKey(first, old[at + 1] as number, third) : first;
      let target = spread(key) & mask;
      while (slots[4 * target + 3] !== 0) target = (target + 1) & mask;
      slots.set(old.subarray(at, at + 4), 4 * target);
    }
    this.slots = slots;
    this.mask = mask;
  }
}
