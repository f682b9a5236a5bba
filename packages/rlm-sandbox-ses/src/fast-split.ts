/**
 * A spec-exact `String.prototype.split` that stays fast after SES `lockdown()`.
 *
 * After `lockdown()` V8's `RegExp.prototype[Symbol.split]` leaves its fast path: `text.split(/\s+/)`
 * runs 14-39x slower than in plain Node, `split(/\n/)` over 200x. This replacement handles the
 * common case, a pristine RegExp separator (see `RegExpToolkit.isPristine`), without it:
 *
 * - a separator that matches one fixed string (`/\n/`, `/,/`, `/ \| /`) splits on that string,
 *   with the native string `split`, which lockdown does not slow;
 * - a separator that is one character class, alone or repeated (`/\s+/`, `/\W+/`, `/[,;]/`),
 *   splits by one scan of the text with a table of the class (see `code-unit-class.ts`),
 *   handing out one string per distinct piece;
 * - any other pattern loops over `RegExp.prototype.exec` of a private global copy.
 *
 * Everything else follows ECMA-262 (`String.prototype.split`, `RegExp.prototype[@@split]`)
 * step by step. A vetted shim: install before `lockdown()`, which then freezes it.
 */
import { type CodeUnitPattern, type CodeUnitPatterns, inClass } from './code-unit-class.js';
import {
  controlEscapes,
  isUnicodeFlags,
  type RegExpToolkit,
  syntaxCharacters,
} from './regexp-toolkit.js';
import { splitOnCodeUnits } from './split-on-code-units.js';

const maxArrayLength = 2 ** 32 - 1;
const maxCachedPlans = 256;

/** How a pristine separator splits, decided once per source and flags. */
type SplitPlan =
  | { readonly kind: 'literal'; readonly literal: string }
  | { readonly kind: 'class'; readonly pattern: CodeUnitPattern }
  | { readonly kind: 'general'; readonly matcher: RegExp; readonly unicode: boolean };

/**
 * The one string a pattern matches, when its source is only plain characters, escaped syntax
 * characters and control escapes, and the flags cannot widen it: with `i`, only ASCII
 * non-letters (they have no case variants); with `u` or `v`, no surrogates (those match code
 * points, not code units).
 */
function literalOf(source: string, flags: string): string | undefined {
  let literal = '';
  for (let index = 0; index < source.length; index++) {
    const character = source[index] as string;
    if (character === '\\') {
      const escaped = source[++index];
      if (escaped === undefined) return undefined;
      if (syntaxCharacters.includes(escaped)) literal += escaped;
      else if (Object.hasOwn(controlEscapes, escaped)) literal += controlEscapes[escaped];
      else return undefined;
    } else if (syntaxCharacters.includes(character)) {
      return undefined;
    } else {
      literal += character;
    }
  }
  if (literal === '') return undefined;
  for (let index = 0; index < literal.length; index++) {
    const code = literal.charCodeAt(index);
    if (isUnicodeFlags(flags) && code >= 0xd800 && code <= 0xdfff) {
      return undefined;
    }
    const isLetter = (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
    if (flags.includes('i') && (code > 0x7f || isLetter)) return undefined;
  }
  return literal;
}

/**
 * Builds the replacement from the intrinsics it relies on, captured once.
 * `nativeSplit` is the original `String.prototype.split`.
 */
export function makeFastSplit(
  toolkit: RegExpToolkit,
  codeUnitPatterns: CodeUnitPatterns,
  nativeSplit: typeof String.prototype.split,
): typeof String.prototype.split {
  const plans = new Map<string, SplitPlan>();
  const planFor = (separator: RegExp): SplitPlan => {
    const { source, flags } = separator;
    const key = `${flags}/${source}`;
    let plan = plans.get(key);
    if (plan !== undefined) return plan;
    const literal = literalOf(source, flags);
    const pattern = literal === undefined ? codeUnitPatterns(source, flags) : undefined;
    if (literal !== undefined) plan = { kind: 'literal', literal };
    else if (pattern !== undefined) plan = { kind: 'class', pattern };
    else {
      // `d`, `g` and `y` do not change the result: the matcher is always global.
      const kept = [...flags].filter((flag) => !'dgy'.includes(flag)).join('');
      const matcher = toolkit.matcher(source, `${kept}g`);
      plan = { kind: 'general', matcher, unicode: isUnicodeFlags(kept) };
    }
    if (plans.size >= maxCachedPlans) plans.clear();
    plans.set(key, plan);
    return plan;
  };

  const splitByRegExp = (separator: RegExp, value: unknown, limit: unknown): string[] => {
    const text = `${value}`;
    const plan = planFor(separator);
    const lim = limit === undefined ? maxArrayLength : (limit as number) >>> 0;
    if (plan.kind === 'literal') return Reflect.apply(nativeSplit, text, [plan.literal, lim]);
    if (plan.kind === 'class') {
      const { members, repeated } = plan.pattern;
      return splitOnCodeUnits(text, members, inClass, repeated, lim);
    }
    // A global matcher searching from `q` finds the same first match as the spec's sticky
    // matcher tried at q, q + 1, ..., advancing by code points in unicode mode.
    const { matcher, unicode } = plan;
    const result: string[] = [];
    if (lim === 0) return result;
    const size = text.length;
    if (size === 0) {
      matcher.lastIndex = 0;
      const match = matcher.exec(text);
      return match !== null && match.index === 0 ? result : [text];
    }
    let p = 0;
    let q = 0;
    while (q < size) {
      matcher.lastIndex = q;
      const match = matcher.exec(text);
      if (match === null || match.index >= size) break;
      const e = Math.min(matcher.lastIndex, size);
      if (e === p) {
        q = toolkit.advance(text, match.index, unicode);
        continue;
      }
      result.push(text.slice(p, match.index));
      if (result.length === lim) return result;
      p = e;
      for (let i = 1; i < match.length; i++) {
        result.push(match[i] as string);
        if (result.length === lim) return result;
      }
      q = p;
    }
    result.push(text.slice(p));
    return result;
  };

  // A concise method: named `split`, length 2, no `prototype`, not a constructor.
  const { split } = {
    split(this: unknown, separator: unknown, limit?: unknown): string[] {
      if (this === undefined || this === null) {
        throw new TypeError('String.prototype.split called on null or undefined');
      }
      if (separator !== undefined && separator !== null) {
        const splitter = (separator as { [Symbol.split]?: unknown })[Symbol.split];
        if (splitter !== undefined && splitter !== null) {
          if (typeof splitter !== 'function') {
            throw new TypeError(`${String(splitter)} is not a function`);
          }
          if (splitter === toolkit.split && toolkit.isPristine(separator as object)) {
            return splitByRegExp(separator as RegExp, this, limit);
          }
          return Reflect.apply(splitter, separator, [this, limit]);
        }
      }
      // No @@split: the spec's conversions, in its order, then the native string split, which
      // finds no @@split on a primitive string either.
      const text = `${this}`;
      const lim = limit === undefined ? maxArrayLength : (limit as number) >>> 0;
      const pattern = separator === undefined ? undefined : `${separator}`;
      return Reflect.apply(nativeSplit, text, [pattern, lim]);
    },
  };
  return split as typeof String.prototype.split;
}
