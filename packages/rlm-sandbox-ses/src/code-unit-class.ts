/**
 * Patterns that are one character class: an atom that always matches exactly one UTF-16 code
 * unit (`\s`, `\W`, `[^a-z]`, `.`, ` `), alone or repeated with `+`. Splitting on such a
 * pattern, or matching it globally, needs no regular expression engine in the loop: a table
 * says, for each code unit, whether it is in the class.
 *
 * The table is filled by the RegExp engine itself: each code unit is tested, once, against a
 * private copy of the atom with the pattern's flags that can change a class (`i`, `s`, `u`,
 * `v`). Without `u` or `v` a class is a set of code units, decided for each unit alone, so the
 * table is exact. With `u` or `v` a class matches code points; only `\s`, `\d` and `\w` are
 * taken then (their members are single code units, never surrogates).
 */
import {
  controlEscapes,
  isUnicodeFlags,
  type RegExpToolkit,
  syntaxCharacters,
} from './regexp-toolkit.js';

/** A table entry: the code unit is in the class. */
export const inClass = 1;
/** A table entry: the code unit is not in the class. */
export const notInClass = 2;
/** A table entry not yet decided (only in the table of code units above U+00FF). */
const undecided = 0;

/** The set of code units one atom matches, decided by its own RegExp, unit by unit. */
export class CodeUnitClass {
  /** `inClass` or `notInClass` for U+0000..U+00FF, decided up front. */
  readonly latin1: Uint8Array;
  private wide: Uint8Array | undefined;
  private readonly matcher: RegExp;

  constructor(matcher: RegExp) {
    this.matcher = matcher;
    this.latin1 = new Uint8Array(256);
    for (let code = 0; code < 256; code++) this.latin1[code] = this.decide(code);
  }

  /** `inClass` or `notInClass` for a code unit above U+00FF, decided on first sight. */
  wideMark(code: number): number {
    let wide = this.wide;
    if (wide === undefined) {
      wide = new Uint8Array(65536);
      this.wide = wide;
    }
    let mark = wide[code] as number;
    if (mark === undecided) {
      mark = this.decide(code);
      wide[code] = mark;
    }
    return mark;
  }

  private decide(code: number): number {
    this.matcher.lastIndex = 0;
    return this.matcher.exec(String.fromCharCode(code)) === null ? notInClass : inClass;
  }
}

/** A pattern that is one class atom, alone or repeated. */
export interface CodeUnitPattern {
  readonly members: CodeUnitClass;
  /** True for `atom+` (a run of one or more members), false for the atom alone. */
  readonly repeated: boolean;
}

const classEscapes = 'sSdDwW';
/** With `u` or `v`: the escapes whose members are single code units, never surrogates. */
const unicodeClassEscapes = 'sdw';

/** The length of the class atom at the start of `source`, or 0 when it does not start with one. */
function atomLength(source: string, unicode: boolean): number {
  const first = source[0];
  if (first === undefined) return 0;
  if (first === '\\') {
    const escaped = source[1];
    if (escaped === undefined) return 0;
    if (unicode) return unicodeClassEscapes.includes(escaped) ? 2 : 0;
    const known =
      classEscapes.includes(escaped) ||
      Object.hasOwn(controlEscapes, escaped) ||
      syntaxCharacters.includes(escaped);
    return known ? 2 : 0;
  }
  if (unicode) return 0;
  if (first === '[') {
    // Without `v`, classes do not nest: the first `]` not escaped closes it (`[]` is empty).
    let index = 1;
    while (index < source.length && source[index] !== ']') index += source[index] === '\\' ? 2 : 1;
    return index < source.length ? index + 1 : 0;
  }
  if (first === '.') return 1;
  return syntaxCharacters.includes(first) ? 0 : 1;
}

/** Recognises the pattern and builds its table, or returns `undefined` for any other pattern. */
function codeUnitPatternOf(
  toolkit: RegExpToolkit,
  source: string,
  flags: string,
): CodeUnitPattern | undefined {
  const unicode = isUnicodeFlags(flags);
  const length = atomLength(source, unicode);
  if (length === 0) return undefined;
  const rest = source.slice(length);
  if (rest !== '' && rest !== '+') return undefined;
  const atom = source.slice(0, length);
  // `g`, `y`, `d` and `m` do not change what one atom matches.
  const kept = [...flags].filter((flag) => 'isuv'.includes(flag)).join('');
  const members = new CodeUnitClass(toolkit.matcher(`^(?:${atom})$`, kept));
  return { members, repeated: rest === '+' };
}

/** Each table costs 256 bytes, and 64 KiB more once text beyond U+00FF was scanned with it. */
const maxCachedPatterns = 64;

/**
 * For a RegExp's `source` and `flags`, its `CodeUnitPattern`, or `undefined` when it is not one
 * class atom alone or followed by `+`.
 */
export type CodeUnitPatterns = (source: string, flags: string) => CodeUnitPattern | undefined;

/** Builds a `CodeUnitPatterns` whose answers are cached. */
export function makeCodeUnitPatterns(toolkit: RegExpToolkit): CodeUnitPatterns {
  const patterns = new Map<string, CodeUnitPattern | undefined>();
  return (source, flags) => {
    const key = `${flags}/${source}`;
    if (patterns.has(key)) return patterns.get(key);
    const pattern = codeUnitPatternOf(toolkit, source, flags);
    if (patterns.size >= maxCachedPatterns) patterns.clear();
    patterns.set(key, pattern);
    return pattern;
  };
}
