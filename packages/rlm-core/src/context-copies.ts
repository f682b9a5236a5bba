/** A verbatim copy of the context found in an output. */
export interface ContextCopy {
  /** Where the copy starts in the output. */
  readonly start: number;
  /** Where it ends in the output (exclusive). */
  readonly end: number;
  /** The expression of the context's string it was copied from: `context`, `context[3].text`. */
  readonly path: string;
  /** Where it starts in that string. */
  readonly offset: number;
}

/** Settings of {@link redactContextCopies}. */
export interface RedactionSettings {
  /** Length of the context, in characters. */
  readonly contextLength: number;
  /** Copies adding up to more than `ratio * contextLength` are redacted. */
  readonly ratio: number;
  /** Copies adding up to less than this are never redacted. */
  readonly minChars: number;
}

/** Characters of a verbatim run that count as a copy of the context. */
export const minCopyChars = 200;
/** Characters of each sampled piece of the context the index looks up. */
const gramChars = 32;
/** Distance between sampled pieces: every run of {@link minCopyChars} covers one whole. */
const gramStride = minCopyChars - gramChars + 1;
/** Places one sampled piece is kept at: a repetitive context does not multiply the lookups. */
const maxPlacesPerGram = 8;
/** Strings of the context indexed at most, and characters of them: past them, no more. */
const maxStrings = 100_000;
const maxIndexedChars = 64 * 1024 * 1024;

interface Leaf {
  readonly path: string;
  readonly text: string;
}

/**
 * Finds the long verbatim runs of a context in a piece of output: the strings of the context
 * (the context itself, or its string items and fields, named by path) are sampled into an index
 * of hashes the first time an output is searched, then the hash of each output position (rolled
 * along, one lookup per character) is looked up in it and a hit is grown both ways as far as the
 * characters match (a hash collision grows no run). Runs shorter than {@link minCopyChars} are
 * not copies: quoting a sentence is fine, printing a page of the context is not.
 */
export class ContextCopies {
  readonly #context: unknown;
  #leaves: Leaf[] | undefined;
  #index: Map<number, Place[]> | undefined;

  constructor(context: unknown) {
    this.#context = context;
  }

  /** The copies in `output`, in order, never overlapping. */
  find(output: string): ContextCopy[] {
    if (output.length < minCopyChars) return [];
    const { leaves, index } = this.#build();
    if (index.size === 0) return [];
    const copies: ContextCopy[] = [];
    let floor = 0;
    // A rolling hash of the gram at each position: one lookup per character, no slicing.
    let position = 0;
    let hash = gramHash(output, 0);
    while (position + gramChars <= output.length) {
      const hits = index.get(hash);
      const best = hits && longestRun(output, position, floor, hits, leaves);
      if (best && best.end - best.start >= minCopyChars) {
        copies.push(best);
        position = best.end;
        floor = best.end;
        if (position + gramChars <= output.length) hash = gramHash(output, position);
        continue;
      }
      if (position + gramChars < output.length) {
        hash = rollHash(hash, output.charCodeAt(position), output.charCodeAt(position + gramChars));
      }
      position += 1;
    }
    return copies;
  }

  #build(): { leaves: Leaf[]; index: Map<number, Place[]> } {
    if (this.#leaves && this.#index) return { leaves: this.#leaves, index: this.#index };
    const leaves = stringLeaves(this.#context);
    const index = new Map<number, Place[]>();
    for (const [leaf, { text }] of leaves.entries()) {
      for (let offset = 0; offset + gramChars <= text.length; offset += gramStride) {
        const gram = gramHash(text, offset);
        const places = index.get(gram);
        if (!places) index.set(gram, [{ leaf, offset }]);
        else if (places.length < maxPlacesPerGram) places.push({ leaf, offset });
      }
    }
    this.#leaves = leaves;
    this.#index = index;
    return { leaves, index };
  }
}

/** Where a sampled gram is in the context: which string, and where in it. */
interface Place {
  readonly leaf: number;
  readonly offset: number;
}

const hashBase = 31;
/** `hashBase ** (gramChars - 1)`, modulo 2 ** 32. */
const leadingFactor = Array.from({ length: gramChars - 1 }).reduce<number>(
  (factor) => Math.imul(factor, hashBase),
  1,
);

/** The hash of the gram of `text` at `start` (32-bit polynomial). Equal grams, equal hashes. */
function gramHash(text: string, start: number): number {
  let hash = 0;
  for (let at = start; at < start + gramChars; at += 1) {
    hash = (Math.imul(hash, hashBase) + text.charCodeAt(at)) | 0;
  }
  return hash;
}

/** The hash of the next gram: `leaving` goes out at the front, `entering` comes in. */
function rollHash(hash: number, leaving: number, entering: number): number {
  return (Math.imul(hash - Math.imul(leaving, leadingFactor), hashBase) + entering) | 0;
}

/** The longest run through `position` among the index's hits, grown both ways. */
function longestRun(
  output: string,
  position: number,
  floor: number,
  hits: readonly Place[],
  leaves: readonly Leaf[],
): ContextCopy | undefined {
  let best: ContextCopy | undefined;
  for (const hit of hits) {
    const text = leaves[hit.leaf]!.text;
    let start = position;
    let from = hit.offset;
    while (start > floor && from > 0 && output[start - 1] === text[from - 1]) {
      start -= 1;
      from -= 1;
    }
    let end = position;
    let to = hit.offset;
    while (end < output.length && to < text.length && output[end] === text[to]) {
      end += 1;
      to += 1;
    }
    if (!best || end - start > best.end - best.start) {
      best = { start, end, path: leaves[hit.leaf]!.path, offset: from };
    }
  }
  return best;
}

/** The strings of a context long enough to hold a copy, with the expression that names each. */
function stringLeaves(context: unknown): Leaf[] {
  const leaves: Leaf[] = [];
  let chars = 0;
  const seen = new Set<object>();
  const stack: { value: unknown; path: string; depth: number }[] = [
    { value: context, path: 'context', depth: 0 },
  ];
  while (stack.length > 0 && leaves.length < maxStrings && chars < maxIndexedChars) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.length >= minCopyChars) {
        leaves.push({ path, text: value });
        chars += value.length;
      }
      continue;
    }
    if (typeof value !== 'object' || value === null || seen.has(value) || depth > 64) continue;
    seen.add(value);
    const entries = Array.isArray(value)
      ? value.map((item, index) => [`${path}[${index}]`, item] as const)
      : Object.keys(value).map(
          (key) =>
            [`${path}${propertyAccess(key)}`, (value as Record<string, unknown>)[key]] as const,
        );
    for (let at = entries.length - 1; at >= 0; at -= 1) {
      stack.push({ value: entries[at]![1], path: entries[at]![0], depth: depth + 1 });
    }
  }
  return leaves;
}

function propertyAccess(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/**
 * Replaces the copies of the context in `output` with a line naming where each is in the
 * context, when they add up to at least `minChars` and to more than `ratio` of the context:
 * printing a large part of the context would copy it into every later prompt. What the code
 * computed around them (counts, summaries, short quotes) stays, however long the output is.
 */
export function redactContextCopies(
  output: string,
  copies: ContextCopies,
  settings: RedactionSettings,
): string {
  const threshold = Math.max(settings.minChars, settings.ratio * settings.contextLength);
  if (output.length < threshold || settings.contextLength <= 0) return output;
  const found = copies.find(output);
  const copied = found.reduce((sum, copy) => sum + copy.end - copy.start, 0);
  if (copied < settings.minChars || copied <= settings.ratio * settings.contextLength) {
    return output;
  }
  let shown = '';
  let at = 0;
  for (const copy of found) {
    const length = copy.end - copy.start;
    shown += `${output.slice(at, copy.start)}[redacted: ${length} characters copied verbatim from ${copy.path}.slice(${copy.offset}, ${copy.offset + length}); work on them in code instead of printing them]`;
    at = copy.end;
  }
  return shown + output.slice(at);
}
