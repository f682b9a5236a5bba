/** Lines held back for one cause since its last printed line. */
interface Held {
  /** When a line of this cause was last printed. */
  readonly printedAt: number;
  count: number;
  /** Prints the count when the interval ends. */
  timer: NodeJS.Timeout | undefined;
  /** The last line held back, shown (cut) in the count line. */
  last: string;
}

/**
 * Prints repeated lines sparingly: the first line of a cause at once, then at most one line
 * per cause per `intervalMs`; the lines held back in between are counted, and the count is
 * printed once the interval ends (`rlm: worker: 49 more like "..." in the last 10 s`), so a
 * failure repeating 50 times a second is a line every 10 s, never silence.
 */
export class RateLimitedLog {
  readonly #write: (line: string) => void;
  readonly #prefix: string;
  readonly #intervalMs: number;
  readonly #held = new Map<string, Held>();

  /**
   * @param write prints one line (no newline).
   * @param options.prefix starts the count lines, e.g. `rlm: worker: `.
   * @param options.intervalMs default 10,000.
   */
  constructor(
    write: (line: string) => void,
    options: { readonly prefix: string; readonly intervalMs?: number },
  ) {
    this.#write = write;
    this.#prefix = options.prefix;
    this.#intervalMs = options.intervalMs ?? 10_000;
  }

  /**
   * Prints `line` (which carries its own prefix) unless a line of the same `cause` was printed
   * less than the interval ago; then counts it.
   */
  report(cause: string, line: string): void {
    const now = performance.now();
    const held = this.#held.get(cause);
    if (held === undefined || now - held.printedAt >= this.#intervalMs) {
      if (held !== undefined) this.#printCount(cause, held);
      this.#held.set(cause, { printedAt: now, count: 0, timer: undefined, last: line });
      this.#write(line);
      return;
    }
    held.count += 1;
    held.last = line;
    held.timer ??= setTimeout(
      () => this.#printCount(cause, held),
      Math.max(0, held.printedAt + this.#intervalMs - now),
    );
    held.timer.unref();
  }

  /** Prints the counts still held back, at once (before the process ends). */
  flush(): void {
    for (const [cause, held] of this.#held) this.#printCount(cause, held);
  }

  #printCount(cause: string, held: Held): void {
    clearTimeout(held.timer);
    held.timer = undefined;
    if (held.count === 0) return;
    const seconds = Math.round(this.#intervalMs / 1000);
    const shown = held.last.length > 160 ? `${held.last.slice(0, 160)}…` : held.last;
    this.#write(
      `${this.#prefix}${held.count} more like ${JSON.stringify(shown)} in the last ${seconds} s`,
    );
    held.count = 0;
    if (this.#held.get(cause) === held) this.#held.delete(cause);
  }
}

/**
 * The cause of an error message, for {@link RateLimitedLog}: the message with what differs from
 * one occurrence to the next (quoted keys, hex digests, numbers) blanked out.
 */
export function causeOf(message: string): string {
  return message
    .replace(/"[^"]*"/g, '""')
    .replace(/\b[0-9a-f]{8,}\b/gi, '#')
    .replace(/\d+/g, '#');
}
