/** Bounds of {@link toPrintableData}. */
export interface PrintableDataLimits {
  /** Most values written out with shared references expanded; past it, repeats are marked. */
  readonly maxExpandedNodes: number;
  /** Most characters of string content written out; past it, the answer cannot be printed. */
  readonly maxChars: number;
  /** Deepest nesting written out; deeper values become a marker. */
  readonly maxDepth: number;
}

export const defaultPrintableDataLimits: PrintableDataLimits = {
  maxExpandedNodes: 1_000_000,
  maxChars: 256 * 1024 * 1024,
  maxDepth: 1_000,
};

/** Thrown by {@link toPrintableData} for an answer whose strings alone are over the limit. */
export class AnswerTooLargeError extends Error {
  override readonly name = 'AnswerTooLargeError';
}

class ExpansionTooLarge extends Error {}

/**
 * A copy of an answer that `JSON.stringify` writes in work linear in the answer's own size:
 * `Map` becomes an object, `Set` an array, a `bigint` a string, an object inside itself
 * `"[Circular]"`, nesting past `maxDepth` `"[Nested too deep]"`. A value referenced from several
 * places is written at each place, unless that would pass `maxExpandedNodes` (a few arrays that
 * hold each other twice, 60 levels deep, have 2^60 paths): then it is written once and marked
 * `"[Shared: $.path]"` at its later places. Throws `AnswerTooLargeError` when the strings
 * written would pass `maxChars`.
 */
export function toPrintableData(
  value: unknown,
  limits: PrintableDataLimits = defaultPrintableDataLimits,
): unknown {
  try {
    return new PrintableCopy(limits, true).copy(value, '$', 0);
  } catch (error) {
    if (!(error instanceof ExpansionTooLarge)) throw error;
    return new PrintableCopy(limits, false).copy(value, '$', 0);
  }
}

class PrintableCopy {
  readonly #limits: PrintableDataLimits;
  readonly #expandShared: boolean;
  readonly #ancestors = new Set<object>();
  readonly #written = new Map<object, string>();
  #nodes = 0;
  #chars = 0;

  constructor(limits: PrintableDataLimits, expandShared: boolean) {
    this.#limits = limits;
    this.#expandShared = expandShared;
  }

  copy(value: unknown, path: string, depth: number): unknown {
    this.#nodes += 1;
    if (this.#expandShared && this.#nodes > this.#limits.maxExpandedNodes) {
      throw new ExpansionTooLarge();
    }
    if (typeof value === 'string') return this.#text(value);
    if (typeof value === 'bigint') return this.#text(value.toString());
    if (typeof value !== 'object' || value === null || value instanceof Date) return value;
    if (this.#ancestors.has(value)) return '[Circular]';
    const first = this.#written.get(value);
    if (first !== undefined) return `[Shared: ${first}]`;
    if (depth >= this.#limits.maxDepth) return '[Nested too deep]';
    if (!this.#expandShared) this.#written.set(value, path);
    this.#ancestors.add(value);
    try {
      return this.#copyObject(value, path, depth + 1);
    } finally {
      this.#ancestors.delete(value);
    }
  }

  #copyObject(value: object, path: string, depth: number): unknown {
    if (Array.isArray(value)) {
      return value.map((item, index) => this.copy(item, `${path}[${index}]`, depth));
    }
    if (value instanceof Set) {
      return [...value].map((item, index) => this.copy(item, `${path}[${index}]`, depth));
    }
    const entries: Iterable<[unknown, unknown]> =
      value instanceof Map ? value : Object.entries(value);
    const copy: Record<string, unknown> = {};
    for (const [key, item] of entries) {
      const name = typeof key === 'string' ? key : String(this.copy(key, path, depth));
      copy[name] = this.copy(item, `${path}${pathStep(name)}`, depth);
    }
    return copy;
  }

  #text(text: string): string {
    this.#chars += text.length;
    if (this.#chars > this.#limits.maxChars) {
      throw new AnswerTooLargeError(
        `the answer is too large to print: its text passes ${this.#limits.maxChars.toLocaleString('en-US')} characters; have the model store it with store() and answer with a summary`,
      );
    }
    return text;
  }
}

function pathStep(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}
