import type { DurableToolContract } from '../../durable-tool-store.js';

/** Most characters in one string of a tool contract (`purpose`, a `deliverable` description, ...). */
export const maxContractStringChars = 500;
/** Most characters in a whole tool contract, as JSON. */
export const maxContractChars = 4_000;
/** Deepest nesting of objects and arrays in a tool contract. */
const maxContractDepth = 8;

/** C0 and C1 controls, DEL, and the bidirectional marks, overrides and isolates. */
const controlCharacters =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const whitespaceControls = /[\t\n\v\f\r]+/g;

/** `text` without control characters: line breaks and tabs become spaces, the rest go. */
export function stripControlCharacters(text: string): string {
  return text.replace(whitespaceControls, ' ').replace(controlCharacters, '');
}

/**
 * Model-made text for a prompt, as data: control characters stripped, whitespace collapsed,
 * cut to `maxChars` (an ellipsis marks the cut), then JSON-quoted with `<` and `>` escaped
 * (`\u003c`, `\u003e`), so it can neither end the quote, start a line of its own, nor close
 * the tag around it.
 */
export function quoteUntrustedText(text: string, maxChars: number): string {
  const clean = stripControlCharacters(text).replace(/\s+/g, ' ').trim();
  const cut = clean.length > maxChars ? `${clean.slice(0, Math.max(0, maxChars - 1))}…` : clean;
  return escapeAngles(JSON.stringify(cut));
}

/**
 * The contract `delegate(role, contract)` declares, checked and cleaned before it is stored: plain
 * JSON (objects, arrays, strings, finite numbers, booleans, null) at most 8 levels deep, every
 * string (keys included) stripped of control characters and at most
 * {@link maxContractStringChars} characters, the whole at most {@link maxContractChars} as JSON.
 * Throws an `Error` whose message says what to change; model code can catch it.
 */
export function boundToolContract(contract: unknown): DurableToolContract {
  if (typeof contract !== 'object' || contract === null || Array.isArray(contract)) {
    throw new Error(
      'the contract must be an object: { purpose, deliverable, acceptance, failurePolicy }',
    );
  }
  const clean = cleanValue(contract, 'contract', 0, {
    left: maxContractChars,
  }) as DurableToolContract;
  const size = JSON.stringify(clean).length;
  if (size > maxContractChars) {
    throw new Error(
      `the contract is ${size} characters as JSON; keep it within ${maxContractChars} (say what the tool does, not the data it works on)`,
    );
  }
  return clean;
}

/**
 * A stored contract for a prompt, as data: the JSON of a copy whose strings are stripped of
 * control characters and cut to {@link maxContractStringChars}, nesting past 8 levels dropped,
 * the whole cut to {@link maxContractChars}, `<` and `>` escaped. Never throws: contracts read
 * back from a store may predate these bounds.
 */
export function quoteToolContract(contract: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(clipValue(contract, 0)) ?? 'null';
  } catch {
    json = 'null';
  }
  const cut = json.length > maxContractChars ? `${json.slice(0, maxContractChars)} …(cut)` : json;
  return escapeAngles(cut);
}

function cleanValue(value: unknown, at: string, depth: number, budget: { left: number }): unknown {
  // Every value takes at least one character of JSON: a huge contract stops early.
  if (--budget.left < 0) {
    throw new Error(`the contract is over ${maxContractChars} characters as JSON; keep it shorter`);
  }
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${at} is ${value}; use a finite number`);
    return value;
  }
  if (typeof value === 'string') return cleanString(value, at);
  if (typeof value !== 'object') {
    throw new Error(`${at} is a ${typeof value}; a contract holds plain JSON only`);
  }
  if (depth >= maxContractDepth) {
    throw new Error(`${at} nests deeper than ${maxContractDepth} levels; flatten the contract`);
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => cleanValue(item, `${at}[${index}]`, depth + 1, budget));
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new Error(`${at} is not a plain object; a contract holds plain JSON only`);
  }
  const clean: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const name = cleanString(key, `a key of ${at}`);
    clean[name] = cleanValue(item, `${at}.${name}`, depth + 1, budget);
  }
  return clean;
}

function cleanString(text: string, at: string): string {
  const clean = stripControlCharacters(text);
  if (clean.length > maxContractStringChars) {
    throw new Error(
      `${at} is ${clean.length} characters; keep each string of a contract within ${maxContractStringChars}`,
    );
  }
  return clean;
}

function clipValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    const clean = stripControlCharacters(value);
    return clean.length > maxContractStringChars
      ? `${clean.slice(0, maxContractStringChars - 1)}…`
      : clean;
  }
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'number' || typeof value === 'boolean' || value === null ? value : null;
  }
  if (depth >= maxContractDepth) return null;
  if (Array.isArray(value)) return value.map((item) => clipValue(item, depth + 1));
  const clipped: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    clipped[clipValue(key, depth) as string] = clipValue(item, depth + 1);
  }
  return clipped;
}

function escapeAngles(text: string): string {
  return text.replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
}
