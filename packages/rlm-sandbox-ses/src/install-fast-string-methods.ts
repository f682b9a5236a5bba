import { makeCodeUnitPatterns } from './code-unit-class.js';
import { makeFastMatch } from './fast-match.js';
import { makeFastReplace } from './fast-replace.js';
import { makeFastSplit } from './fast-split.js';
import { makeRegExpToolkit } from './regexp-toolkit.js';

/**
 * Replaces `String.prototype.split`, `replace`, `replaceAll` and `match` with spec-exact
 * versions that stay fast after `lockdown()` (see `makeFastSplit`, `makeFastReplace`,
 * `makeFastMatch`). Call once, before `lockdown()`, which then freezes them with the other
 * intrinsics.
 */
export function installFastStringMethods(): void {
  const toolkit = makeRegExpToolkit();
  const codeUnitPatterns = makeCodeUnitPatterns(toolkit);
  const { prototype } = String;
  const { replace, replaceAll } = makeFastReplace(toolkit, prototype.replace, prototype.replaceAll);
  const methods = {
    split: makeFastSplit(toolkit, codeUnitPatterns, prototype.split),
    replace,
    replaceAll,
    match: makeFastMatch(toolkit, codeUnitPatterns, prototype.match),
  };
  for (const [name, value] of Object.entries(methods)) {
    Object.defineProperty(prototype, name, {
      value,
      writable: true,
      enumerable: false,
      configurable: true,
    });
  }
}
