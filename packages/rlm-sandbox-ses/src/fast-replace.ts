/**
 * Spec-exact `String.prototype.replace` and `replaceAll` that stay fast after SES `lockdown()`
 * (where V8's own `replace(/re/g, ...)` runs 3-7x slower). A pristine RegExp argument (see
 * `RegExpToolkit.isPristine`) is matched with a private copy through `exec`, with the same
 * effects on its `lastIndex` as ECMA-262's `RegExp.prototype[@@replace]`; every other argument
 * takes the spec's path step by step. Install before `lockdown()`.
 */
import { getSubstitution } from './get-substitution.js';
import { isUnicodeFlags, type RegExpToolkit } from './regexp-toolkit.js';

type Replace = (this: unknown, searchValue: unknown, replaceValue: unknown) => string;

/** The replacement for one match result, per `RegExp.prototype[@@replace]` step 14. */
function replacementFor(
  result: RegExpExecArray,
  text: string,
  replaceValue: unknown,
  template: string,
  functional: boolean,
): { readonly position: number; readonly length: number; readonly replacement: string } {
  const matched = result[0];
  const position = Math.max(Math.min(result.index, text.length), 0);
  const groups = result.groups;
  if (!functional && template.indexOf('$') < 0) {
    return { position, length: matched.length, replacement: template };
  }
  const captures: (string | undefined)[] = [];
  for (let index = 1; index < result.length; index++) captures.push(result[index]);
  let replacement: string;
  if (functional) {
    const parameters: unknown[] = [matched, ...captures, position, text];
    if (groups !== undefined) parameters.push(groups);
    replacement = `${Reflect.apply(replaceValue as Function, undefined, parameters)}`;
  } else {
    replacement = getSubstitution(matched, text, position, captures, groups, template);
  }
  return { position, length: matched.length, replacement };
}

/**
 * `RegExp.prototype[@@replace]` for a pristine `regExp`: the matches are found with a private
 * copy; `regExp.lastIndex` is read and written as the spec does (written 0 first when global,
 * copied after the match when sticky), so a frozen RegExp throws where the spec would.
 */
function replaceByRegExp(
  toolkit: RegExpToolkit,
  regExp: RegExp,
  value: unknown,
  replaceValue: unknown,
): string {
  const text = `${value}`;
  const functional = typeof replaceValue === 'function';
  const template = functional ? '' : `${replaceValue}`;
  const flags = regExp.flags;
  const matcher = toolkit.matcher(regExp.source, flags);
  const results: RegExpExecArray[] = [];
  if (!flags.includes('g')) {
    const sticky = flags.includes('y');
    matcher.lastIndex = sticky ? regExp.lastIndex : 0;
    const result = matcher.exec(text);
    if (sticky) regExp.lastIndex = matcher.lastIndex;
    if (result === null) return text;
    results.push(result);
  } else {
    const unicode = isUnicodeFlags(flags);
    regExp.lastIndex = 0;
    matcher.lastIndex = 0;
    if (!functional) {
      // Nothing the guest wrote runs while matching: build the result as matches come.
      let accumulated = '';
      let nextPosition = 0;
      for (let result = matcher.exec(text); result !== null; result = matcher.exec(text)) {
        const { position, length, replacement } = replacementFor(
          result,
          text,
          replaceValue,
          template,
          false,
        );
        if (length === 0) matcher.lastIndex = toolkit.advance(text, matcher.lastIndex, unicode);
        if (position >= nextPosition) {
          accumulated += text.slice(nextPosition, position) + replacement;
          nextPosition = position + length;
        }
      }
      return nextPosition >= text.length ? accumulated : accumulated + text.slice(nextPosition);
    }
    // A replacer function runs only after every match is found, as the spec orders it.
    for (let result = matcher.exec(text); result !== null; result = matcher.exec(text)) {
      results.push(result);
      if (result[0].length === 0) {
        matcher.lastIndex = toolkit.advance(text, matcher.lastIndex, unicode);
      }
    }
  }
  let accumulated = '';
  let nextPosition = 0;
  for (const result of results) {
    const { position, length, replacement } = replacementFor(
      result,
      text,
      replaceValue,
      template,
      functional,
    );
    if (position >= nextPosition) {
      accumulated += text.slice(nextPosition, position) + replacement;
      nextPosition = position + length;
    }
  }
  return nextPosition >= text.length ? accumulated : accumulated + text.slice(nextPosition);
}

/**
 * Builds `replace` and `replaceAll` from the intrinsics they rely on: `nativeReplace` and
 * `nativeReplaceAll` are the original `String.prototype` methods, used for string patterns.
 */
export function makeFastReplace(
  toolkit: RegExpToolkit,
  nativeReplace: typeof String.prototype.replace,
  nativeReplaceAll: typeof String.prototype.replaceAll,
): { readonly replace: Replace; readonly replaceAll: Replace } {
  /** The string-pattern path, after the spec's conversions in its order. */
  const replaceString = (
    native: Function,
    value: unknown,
    searchValue: unknown,
    replaceValue: unknown,
  ): string => {
    const text = `${value}`;
    const searchString = `${searchValue}`;
    const replacement = typeof replaceValue === 'function' ? replaceValue : `${replaceValue}`;
    return Reflect.apply(native, text, [searchString, replacement]);
  };

  /** GetMethod(searchValue, @@replace), then the fast path or the spec's call. */
  const callReplacer = (
    searchValue: object,
    replacer: unknown,
    value: unknown,
    replaceValue: unknown,
  ): string => {
    if (typeof replacer !== 'function') {
      throw new TypeError(`${String(replacer)} is not a function`);
    }
    if (replacer === toolkit.replace && toolkit.isPristine(searchValue)) {
      return replaceByRegExp(toolkit, searchValue, value, replaceValue);
    }
    return Reflect.apply(replacer, searchValue, [value, replaceValue]);
  };

  // Concise methods: named, length 2, no `prototype`, not constructors.
  const methods = {
    replace(this: unknown, searchValue: unknown, replaceValue: unknown): string {
      if (this === undefined || this === null) {
        throw new TypeError('String.prototype.replace called on null or undefined');
      }
      if (searchValue !== undefined && searchValue !== null) {
        const replacer = (searchValue as { [Symbol.replace]?: unknown })[Symbol.replace];
        if (replacer !== undefined && replacer !== null) {
          return callReplacer(searchValue as object, replacer, this, replaceValue);
        }
      }
      return replaceString(nativeReplace, this, searchValue, replaceValue);
    },
    replaceAll(this: unknown, searchValue: unknown, replaceValue: unknown): string {
      if (this === undefined || this === null) {
        throw new TypeError('String.prototype.replaceAll called on null or undefined');
      }
      if (searchValue !== undefined && searchValue !== null) {
        if (isRegExp(toolkit, searchValue)) {
          const flags = (searchValue as { flags?: unknown }).flags;
          if (flags === undefined || flags === null) {
            throw new TypeError('String.prototype.replaceAll called with flags null or undefined');
          }
          if (!`${flags}`.includes('g')) {
            throw new TypeError('replaceAll must be called with a global RegExp');
          }
        }
        const replacer = (searchValue as { [Symbol.replace]?: unknown })[Symbol.replace];
        if (replacer !== undefined && replacer !== null) {
          return callReplacer(searchValue as object, replacer, this, replaceValue);
        }
      }
      return replaceString(nativeReplaceAll, this, searchValue, replaceValue);
    },
  };
  return methods;
}

/** ECMA-262's IsRegExp: `@@match` decides when present, else the RegExp brand. */
function isRegExp(toolkit: RegExpToolkit, value: unknown): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const matcher = (value as { [Symbol.match]?: unknown })[Symbol.match];
  if (matcher !== undefined) return Boolean(matcher);
  return toolkit.isRegExpObject(value);
}
