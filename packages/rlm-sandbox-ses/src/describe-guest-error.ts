/**
 * What model code's errors look like to the model: one readable line in the names the code
 * used, then the code's own stack frames by line.
 */
import { formatValue } from './format-value.js';
import { messageOf } from './message-of.js';
import { evalName, importName, replSourceUrl, wrapperName } from './rewrite-code.js';

/** Attenuated V8 call sites, as SES hands them to `Error.prepareStackTrace`. */
interface CallSite {
  getFunctionName(): string | null;
  getLineNumber(): number | null;
  getScriptNameOrSourceURL(): string | null;
}

const maxStackFrames = 5;

const callSites = new WeakMap<object, CallSite[]>();

/**
 * Keeps the call sites of every error made from now on, for {@link describeGuestError}. Guest
 * code sees an empty `stack` (SES's safe error taming). Call once, after `lockdown()`.
 */
export function captureCallSites(): void {
  (Error as unknown as { prepareStackTrace: unknown }).prepareStackTrace = (
    error: object,
    sites: CallSite[],
  ) => {
    callSites.set(error, sites);
    return '';
  };
}

/** Replaces the rewriter's names in engine messages with the names the code used. */
function cleanMessage(message: string): string {
  return message
    .replace(/\(0\s*,\s*__rlm_c_([\p{ID_Continue}$\u200c\u200d]+)\.v\)/gu, '$1')
    .replace(/__rlm_c_([\p{ID_Continue}$\u200c\u200d]+)\.v/gu, '$1')
    .replace(/\(?__rlm\.ref\((?:"([^"]*)"|\.\.\.)\)\)?/g, (_, name: string | undefined) =>
      name === undefined ? 'value' : name,
    )
    .replaceAll(evalName, 'eval')
    .replaceAll(importName, 'import');
}

/**
 * One readable line, then the model code's own stack frames.
 *
 * @param codeLines lines of the code that ran: frames past them are the wrapper's.
 */
export function describeGuestError(thrown: unknown, codeLines: number): string {
  if (typeof thrown !== 'object' || thrown === null) {
    return `Uncaught ${formatValue(thrown, { maxLength: 500, quoteStrings: true })}`;
  }
  let line: string;
  try {
    const { name, message } = thrown as { name?: unknown; message?: unknown };
    line =
      typeof message === 'string'
        ? `${typeof name === 'string' ? name : 'Error'}: ${cleanMessage(message)}`
        : `Uncaught ${formatValue(thrown, { maxLength: 500 })}`;
  } catch (error) {
    return `Uncaught error (${messageOf(error)})`;
  }
  try {
    void (thrown as { stack?: unknown }).stack;
  } catch {
    // A getter on the guest's error threw: no frames.
  }
  // Columns shift where names were rewritten; lines do not.
  const frames = (callSites.get(thrown) ?? [])
    .filter((site) => site.getScriptNameOrSourceURL() === replSourceUrl)
    .map((site) => ({ name: site.getFunctionName(), line: site.getLineNumber() ?? 0 }))
    .filter((frame) => frame.line <= codeLines)
    .slice(0, maxStackFrames)
    .map(({ name, line }) => {
      const label =
        name === wrapperName ? '<top level>' : !name || name === 'eval' ? '<anonymous>' : name;
      return `    at ${cleanMessage(label)} (line ${line})`;
    });
  return [line, ...frames].join('\n');
}
