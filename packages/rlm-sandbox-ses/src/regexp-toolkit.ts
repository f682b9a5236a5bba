/**
 * What the string method shims (`split`, `replace`, `replaceAll`, `match`) share: RegExp
 * intrinsics captured before `lockdown()`, the test that a RegExp argument can be used without
 * observable difference from ECMA-262, and private matchers that V8 keeps on its fast path.
 *
 * Why they exist: `lockdown()` freezes `RegExp.prototype` and SES replaces its `constructor`.
 * Either takes V8's RegExp builtins (`@@split`, `@@replace`, `@@match`) off their fast paths for
 * the whole isolate; only `RegExp.prototype.exec` on a RegExp with V8's initial map stays fast.
 */

/** See the module comment; built once, before `lockdown()`. */
export interface RegExpToolkit {
  /** `RegExp.prototype.exec`, `[Symbol.split]`, `[Symbol.replace]`, `[Symbol.match]`. */
  readonly exec: RegExp['exec'];
  readonly split: RegExp[typeof Symbol.split];
  readonly replace: RegExp[typeof Symbol.replace];
  readonly match: RegExp[typeof Symbol.match];
  /** The RegExp brand check: true for RegExp objects (of any prototype), false for proxies. */
  isRegExpObject(value: object): boolean;
  /**
   * True when `value` is a real RegExp (not a proxy, not a subclass instance) on the intrinsic
   * prototype whose `exec` is intrinsic, with no own property but a numeric `lastIndex`: then
   * every read ECMA-262 makes of it is of an intrinsic accessor and observes nothing.
   */
  isPristine(value: object): value is RegExp;
  /**
   * A private RegExp with `source` and `flags`, made by the original constructor (V8's initial
   * map, the fast `exec`), cached. Never handed to guest code; each use sets its `lastIndex`.
   */
  matcher(source: string, flags: string): RegExp;
  /** ECMA-262's AdvanceStringIndex. */
  advance(text: string, index: number, unicode: boolean): number;
}

const maxCachedMatchers = 256;

/** Captures the intrinsics: call before `lockdown()` (or in tests, on unlocked intrinsics). */
export function makeRegExpToolkit(): RegExpToolkit {
  const OriginalRegExp = RegExp;
  const regExpPrototype = RegExp.prototype;
  const intrinsicExec = regExpPrototype.exec;
  const sourceGetter = Object.getOwnPropertyDescriptor(regExpPrototype, 'source')?.get as (
    this: unknown,
  ) => string;
  const { getPrototypeOf, ownKeys, apply } = Reflect;
  const matchers = new Map<string, RegExp>();

  /** The brand check of `get RegExp.prototype.source`: it reads an internal slot, no traps. */
  const isRegExpObject = (value: object): boolean => {
    try {
      apply(sourceGetter, value, []);
      return true;
    } catch {
      return false;
    }
  };

  return {
    exec: intrinsicExec,
    split: regExpPrototype[Symbol.split],
    replace: regExpPrototype[Symbol.replace],
    match: regExpPrototype[Symbol.match],
    isRegExpObject,
    isPristine(value: object): value is RegExp {
      return (
        isRegExpObject(value) &&
        getPrototypeOf(value) === regExpPrototype &&
        regExpPrototype.exec === intrinsicExec &&
        ownKeys(value).length === 1 &&
        typeof (value as RegExp).lastIndex === 'number'
      );
    },
    matcher(source: string, flags: string): RegExp {
      const key = `${flags}/${source}`;
      let matcher = matchers.get(key);
      if (matcher === undefined) {
        if (matchers.size >= maxCachedMatchers) matchers.clear();
        matcher = new OriginalRegExp(source, flags);
        matchers.set(key, matcher);
      }
      return matcher;
    },
    advance(text: string, index: number, unicode: boolean): number {
      if (!unicode || index + 1 >= text.length) return index + 1;
      const first = text.charCodeAt(index);
      if (first < 0xd800 || first > 0xdbff) return index + 1;
      const second = text.charCodeAt(index + 1);
      return second >= 0xdc00 && second <= 0xdfff ? index + 2 : index + 1;
    },
  };
}

/** Whether `flags` (a `flags` string) match by code points: `u` or `v`. */
export function isUnicodeFlags(flags: string): boolean {
  return flags.includes('u') || flags.includes('v');
}

/** ECMA-262's SyntaxCharacter, and `/`: the characters a pattern escapes to match them. */
export const syntaxCharacters = '^$\\.*+?()[]{}|/';

/** ECMA-262's ControlEscape: the letter after `\` and the code unit it stands for. */
export const controlEscapes: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  f: '\f',
  v: '\v',
};
