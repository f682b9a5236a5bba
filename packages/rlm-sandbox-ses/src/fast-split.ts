/**
 * A spec-exact `String.prototype.split` that stays fast after SES `lockdown()`.
 *
 * Freezing `RegExp.prototype` pushes V8's `RegExp.prototype[Symbol.split]` off its fast path:
 * `text.split(/\s+/)` runs 14-39x slower than in plain Node. This replacement handles the
 * common case, a pristine `RegExp` separator, with a loop over `RegExp.prototype.exec`, which
 * V8 keeps fast, and follows ECMA-262 (`String.prototype.split` and
 * `RegExp.prototype[@@split]`) step by step for everything else. It is a vetted shim: it must
 * be installed before `lockdown()`, which then freezes it with the other intrinsics.
 */

const maxArrayLength = 2 ** 32 - 1;

/** `unicodeSets` (the `v` flag) is newer than the TypeScript lib in use. */
type FlaggedRegExp = RegExp & { readonly unicodeSets?: boolean };

/**
 * Builds the replacement from the intrinsics it relies on, captured once.
 * `nativeSplit` is the original `String.prototype.split`.
 */
export function makeFastSplit(
  nativeSplit: typeof String.prototype.split,
): typeof String.prototype.split {
  const OriginalRegExp = RegExp;
  const regExpPrototype = RegExp.prototype;
  const intrinsicSplit = regExpPrototype[Symbol.split];
  const intrinsicExec = regExpPrototype.exec;
  const { hasOwn } = Object;
  const { getPrototypeOf } = Reflect;
  // Own properties that would make the spec's reads of the separator observable: the species
  // lookup, `flags` and the flag getters it reads, and `Symbol.match` (read by the RegExp
  // constructor).
  const observedKeys: PropertyKey[] = [
    'constructor',
    'flags',
    'hasIndices',
    'global',
    'ignoreCase',
    'multiline',
    'dotAll',
    'unicode',
    'unicodeSets',
    'sticky',
    Symbol.match,
  ];

  /**
   * True when splitting with `separator` can observe nothing but the spec's result: a plain
   * `RegExp` without own properties that shadow what the spec reads, on a prototype whose
   * `exec` is the intrinsic. (After `lockdown()` the prototype is frozen.)
   */
  const isPristineRegExp = (separator: RegExp): boolean => {
    if (getPrototypeOf(separator) !== regExpPrototype || regExpPrototype.exec !== intrinsicExec) {
      return false;
    }
    for (const key of observedKeys) {
      if (hasOwn(separator, key)) return false;
    }
    return true;
  };

  // A freshly built RegExp is slow on its first `exec`, so splitters are cached by source and
  // flags. They are private and used synchronously: `exec` on them runs no user code.
  const maxCachedSources = 256;
  const splitters = new Map<string, (RegExp | undefined)[]>();
  const splitterFor = (separator: RegExp): RegExp => {
    const source = separator.source;
    // `d`, `g` and `y` do not change the result: the splitter is always global.
    const bits =
      (separator.ignoreCase ? 1 : 0) |
      (separator.multiline ? 2 : 0) |
      (separator.dotAll ? 4 : 0) |
      (separator.unicode ? 8 : 0) |
      ((separator as FlaggedRegExp).unicodeSets ? 16 : 0);
    let slots = splitters.get(source);
    if (slots === undefined) {
      if (splitters.size >= maxCachedSources) splitters.clear();
      slots = [];
      splitters.set(source, slots);
    }
    let splitter = slots[bits];
    if (splitter === undefined) {
      const flags = ['i', 'm', 's', 'u', 'v'].filter((_, i) => bits & (1 << i)).join('');
      splitter = new OriginalRegExp(source, `${flags}g`);
      slots[bits] = splitter;
    }
    return splitter;
  };

  const advance = (text: string, index: number, unicode: boolean): number => {
    if (!unicode || index + 1 >= text.length) return index + 1;
    const first = text.charCodeAt(index);
    if (first < 0xd800 || first > 0xdbff) return index + 1;
    const second = text.charCodeAt(index + 1);
    return second >= 0xdc00 && second <= 0xdfff ? index + 2 : index + 1;
  };

  const splitByRegExp = (separator: RegExp, value: unknown, limit: unknown): string[] => {
    const text = `${value}`;
    // A global matcher searching from `q` finds the same first match as the spec's sticky
    // matcher tried at q, q + 1, ..., advancing by code points in unicode mode.
    const splitter = splitterFor(separator);
    const unicode = splitter.unicode || (splitter as FlaggedRegExp).unicodeSets === true;
    const lim = limit === undefined ? maxArrayLength : (limit as number) >>> 0;
    const result: string[] = [];
    if (lim === 0) return result;
    const size = text.length;
    if (size === 0) {
      splitter.lastIndex = 0;
      const match = splitter.exec(text);
      return match !== null && match.index === 0 ? result : [text];
    }
    let p = 0;
    let q = 0;
    while (q < size) {
      splitter.lastIndex = q;
      const match = splitter.exec(text);
      if (match === null || match.index >= size) break;
      const e = Math.min(splitter.lastIndex, size);
      if (e === p) {
        q = advance(text, match.index, unicode);
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
          if (splitter === intrinsicSplit && isPristineRegExp(separator as RegExp)) {
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

/**
 * Replaces `String.prototype.split` with {@link makeFastSplit}'s version. Call once, before
 * `lockdown()`.
 */
export function installFastSplit(): void {
  Object.defineProperty(String.prototype, 'split', {
    value: makeFastSplit(String.prototype.split),
    writable: true,
    enumerable: false,
    configurable: true,
  });
}
