/**
 * Splitting and global matching for patterns that are one character class (see
 * `code-unit-class.ts`), by one scan of the text: no RegExp call per piece, one string per
 * distinct piece (see `PieceInterner`).
 */
import { type CodeUnitClass, inClass, notInClass } from './code-unit-class.js';
import { PieceInterner } from './piece-interner.js';

/**
 * The pieces of `text` between separators, at most `limit` of them: what
 * `text.split(pattern, limit)` returns when `pattern` matches one code unit of a class
 * (`repeated` false) or a run of them (`repeated` true). A separator is a code unit whose
 * entry is `separator` (`inClass` to split on the class, `notInClass` on its complement).
 * The text before `from` is left out.
 */
export function splitOnCodeUnits(
  text: string,
  members: CodeUnitClass,
  separator: typeof inClass | typeof notInClass,
  repeated: boolean,
  limit: number,
  from = 0,
): string[] {
  if (limit === 0) return [];
  const { latin1 } = members;
  const pieces = new PieceInterner(text);
  const size = text.length;
  let start = from;
  let index = from;
  // The units of the piece so far, as `PieceInterner.addScanned` takes them.
  let high = 0;
  let low = 0;
  let units = 0;
  while (index < size) {
    const code = text.charCodeAt(index);
    if ((code < 256 ? latin1[code] : members.wideMark(code)) !== separator) {
      if (index - start < 4) high = (high << 8) | code;
      else low = (low << 8) | code;
      units |= code;
      index++;
      continue;
    }
    pieces.addScanned(start, index, high, low, units);
    if (pieces.count === limit) return pieces.pieces();
    index++;
    if (repeated) {
      while (index < size) {
        const next = text.charCodeAt(index);
        if ((next < 256 ? latin1[next] : members.wideMark(next)) !== separator) break;
        index++;
      }
    }
    start = index;
    high = 0;
    low = 0;
    units = 0;
  }
  pieces.addScanned(start, size, high, low, units);
  return pieces.pieces();
}

/**
 * What `text.match(pattern)` returns for a global, non-sticky `pattern` that matches a run of
 * one or more code units of a class: the maximal runs, or `null` when there is none. They are
 * the pieces between runs of the complement, less the empty ones at either end.
 */
export function matchCodeUnitRuns(text: string, members: CodeUnitClass): string[] | null {
  const { latin1 } = members;
  let first = 0;
  while (first < text.length) {
    const code = text.charCodeAt(first);
    if ((code < 256 ? latin1[code] : members.wideMark(code)) === inClass) break;
    first++;
  }
  if (first === text.length) return null;
  const runs = splitOnCodeUnits(text, members, notInClass, true, 2 ** 32 - 1, first);
  if (runs[runs.length - 1] === '') runs.pop();
  return runs;
}
