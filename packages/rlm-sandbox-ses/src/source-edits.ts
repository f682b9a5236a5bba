interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly order: number;
}

/**
 * Non-overlapping text edits against one source string, applied in one pass. At the same
 * position, insertions come before a replacement, and insertions keep the order they were made.
 */
export class SourceEdits {
  readonly #edits: Edit[] = [];

  /** Replaces `source.slice(start, end)` with `text`. */
  replace(start: number, end: number, text: string): void {
    this.#edits.push({ start, end, text, order: this.#edits.length });
  }

  /** Inserts `text` before `source[at]`. */
  insert(at: number, text: string): void {
    this.replace(at, at, text);
  }

  /** The edited source. Throws when two edits overlap (a bug in the caller). */
  apply(source: string): string {
    const isReplacement = (edit: Edit) => (edit.end > edit.start ? 1 : 0);
    const sorted = [...this.#edits].sort(
      (a, b) => a.start - b.start || isReplacement(a) - isReplacement(b) || a.order - b.order,
    );
    const parts: string[] = [];
    let position = 0;
    for (const edit of sorted) {
      if (edit.start < position) {
        throw new Error(`@rlm/sandbox-ses: overlapping source edits at ${edit.start}`);
      }
      parts.push(source.slice(position, edit.start), edit.text);
      position = edit.end;
    }
    parts.push(source.slice(position));
    return parts.join('');
  }
}
