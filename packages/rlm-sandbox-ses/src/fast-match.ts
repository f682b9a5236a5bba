/**
 * A spec-exact `String.prototype.match` that stays fast after SES `lockdown()` (where V8's own
 * `match(/re/g)` runs ~1.5x slower). A pristine RegExp argument (see
 * `RegExpToolkit.isPristine`) is matched with a private copy through `exec` (a global run of one
 * character class, `/\w+/g`, by one scan of the text: see `split-on-code-units.ts`), with the same
 * effects on its `lastIndex` as ECMA-262's `RegExp.prototype[@@match]`; every other argument
 * takes the spec's path. Install before `lockdown()`.
 */
import type { CodeUnitPatterns } from './code-unit-class.js';
import { isUnicodeFlags, type RegExpToolkit } from './regexp-toolkit.js';
import { matchCodeUnitRuns } from './split-on-code-units.js';

type Match = (this: unknown, regexp: unknown) => RegExpMatchArray | null;

/** `RegExp.prototype[@@match]` for a pristine `regExp`. */
function matchByRegExp(
  toolkit: RegExpToolkit,
  codeUnitPatterns: CodeUnitPatterns,
  regExp: RegExp,
  value: unknown,
): RegExpMatchArray | null {
  const text = `${value}`;
  const flags = regExp.flags;
  if (flags.includes('g') && !flags.includes('y')) {
    // A run of one class (`/\w+/g`, `/\S+/g`): the maximal runs, found by one scan.
    const pattern = codeUnitPatterns(regExp.source, flags);
    if (pattern?.repeated === true) {
      regExp.lastIndex = 0;
      return matchCodeUnitRuns(text, pattern.members) as RegExpMatchArray | null;
    }
  }
  const matcher = toolkit.matcher(regExp.source, flags);
  if (!flags.includes('g')) {
    const sticky = flags.includes('y');
    matcher.lastIndex = sticky ? regExp.lastIndex : 0;
    const result = matcher.exec(text);
    if (sticky) regExp.lastIndex = matcher.lastIndex;
    return result;
  }
  const unicode = isUnicodeFlags(flags);
  regExp.lastIndex = 0;
  matcher.lastIndex = 0;
  const matches: string[] = [];
  for (let result = matcher.exec(text); result !== null; result = matcher.exec(text)) {
    const matched = result[0];
    matches.push(matched);
    if (matched.length === 0) matcher.lastIndex = toolkit.advance(text, matcher.lastIndex, unicode);
  }
  return matches.length === 0 ? null : (matches as RegExpMatchArray);
}

/**
 * Builds `match` from the intrinsics it relies on; `nativeMatch` is the original
 * `String.prototype.match`, used for non-RegExp patterns.
 */
export function makeFastMatch(
  toolkit: RegExpToolkit,
  codeUnitPatterns: CodeUnitPatterns,
  nativeMatch: typeof String.prototype.match,
): Match {
  // A concise method: named `match`, length 1, no `prototype`, not a constructor.
  const { match } = {
    match(this: unknown, regexp: unknown): RegExpMatchArray | null {
      if (this === undefined || this === null) {
        throw new TypeError('String.prototype.match called on null or undefined');
      }
      if (regexp !== undefined && regexp !== null) {
        const matcher = (regexp as { [Symbol.match]?: unknown })[Symbol.match];
        if (matcher !== undefined && matcher !== null) {
          if (typeof matcher !== 'function') {
            throw new TypeError(`${String(matcher)} is not a function`);
          }
          if (matcher === toolkit.match && toolkit.isPristine(regexp as object)) {
            return matchByRegExp(toolkit, codeUnitPatterns, regexp as RegExp, this);
          }
          return Reflect.apply(matcher, regexp, [this]);
        }
      }
      // No @@match: the spec's conversions, in its order, then the native match, which
      // creates the RegExp from the pattern string.
      const text = `${this}`;
      const pattern = regexp === undefined ? undefined : `${regexp}`;
      return Reflect.apply(nativeMatch, text, [pattern]);
    },
  };
  return match;
}
