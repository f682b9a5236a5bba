const headerBytes = 16;

/**
 * The output of one execution, in a `SharedArrayBuffer` the worker writes and the host reads.
 * Because it is shared memory, the host still reads what was printed when it had to terminate
 * the worker (timeout, memory, abort). Holds at most `capacity` UTF-16 code units and counts
 * the ones it dropped.
 */
export class OutputBuffer {
  readonly buffer: SharedArrayBuffer;
  /** [0]: code units kept, [1]: code units dropped. */
  readonly #header: Float64Array;
  readonly #units: Uint16Array;

  constructor(buffer: SharedArrayBuffer) {
    this.buffer = buffer;
    this.#header = new Float64Array(buffer, 0, 2);
    this.#units = new Uint16Array(buffer, headerBytes);
  }

  /** A buffer for `capacity` code units. */
  static create(capacity: number): OutputBuffer {
    return new OutputBuffer(new SharedArrayBuffer(headerBytes + 2 * Math.max(0, capacity)));
  }

  /** Code units that can still be kept. */
  get remaining(): number {
    return this.#units.length - (this.#header[0] as number);
  }

  /** Starts a new execution's output. */
  reset(): void {
    this.#header[0] = 0;
    this.#header[1] = 0;
  }

  /** Appends `text`, keeping what fits and counting the rest. */
  write(text: string): void {
    const length = this.#header[0] as number;
    const kept = Math.min(text.length, this.#units.length - length);
    for (let i = 0; i < kept; i++) this.#units[length + i] = text.charCodeAt(i);
    this.#header[0] = length + kept;
    this.#header[1] = (this.#header[1] as number) + (text.length - kept);
  }

  /** What was written, with a note of how much was dropped. */
  read(): string {
    const length = this.#header[0] as number;
    const dropped = this.#header[1] as number;
    const text = Buffer.from(this.buffer, headerBytes, 2 * length).toString('utf16le');
    return dropped > 0 ? `${text}\n[… ${dropped} more characters of output dropped]` : text;
  }
}
