/** Where and why a JSON text is invalid. */
export interface JsonErrorLocation {
  /** Offset of the first offending character, in UTF-16 code units from 0. */
  readonly offset: number;
  /** 1-based line of `offset`. */
  readonly line: number;
  /** 1-based column of `offset`, in UTF-16 code units. */
  readonly column: number;
  /** What is wrong there, e.g. `unexpected "}"` or `unexpected end of input`. */
  readonly reason: string;
}

const whitespace = new Set([' ', '\t', '\n', '\r']);
const simpleEscapes = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const hexPattern = /^[0-9a-fA-F]{4}$/;

/** What the scanner accepts next. */
type Expectation = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close';

/**
 * Finds the first error in a JSON text (RFC 8259), for messages that name a line and column
 * on every Node version (Node 20's `JSON.parse` does not always report a position). Returns
 * `undefined` when the text is valid JSON. Iterative, so deep nesting cannot overflow.
 */
export function locateJsonError(text: string): JsonErrorLocation | undefined {
  const stack: ('[' | '{')[] = [];
  // Widened: the scanners below reassign it, which control-flow narrowing cannot see.
  let expectation = 'value' as Expectation;
  let index = 0;
  let done = false;

  const fail = (offset: number): JsonErrorLocation => {
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    const character = text[offset];
    const reason =
      character === undefined
        ? 'unexpected end of input'
        : `unexpected ${JSON.stringify(character)}`;
    return { offset, line, column, reason };
  };

  /** Scans a string starting at the opening quote; returns the error offset, if any. */
  const scanString = (): number | undefined => {
    index++;
    while (index < text.length) {
      const character = text[index]!;
      if (character === '"') {
        index++;
        return undefined;
      }
      if (character === '\\') {
        const escaped = text[index + 1];
        if (escaped === 'u' && hexPattern.test(text.slice(index + 2, index + 6))) index += 6;
        else if (escaped !== undefined && simpleEscapes.has(escaped)) index += 2;
        else return index + 1;
      } else if (character.charCodeAt(0) < 0x20) {
        return index;
      } else {
        index++;
      }
    }
    return index;
  };

  /** Scans one scalar or opens a container; returns the error offset, if any. */
  const scanValue = (): number | undefined => {
    const character = text[index];
    if (character === '[' || character === '{') {
      stack.push(character);
      index++;
      expectation = character === '[' ? 'value-or-close' : 'key-or-close';
      return undefined;
    }
    if (character === '"') {
      const error = scanString();
      expectation = 'comma-or-close';
      return error;
    }
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, index)) {
        index += literal.length;
        expectation = 'comma-or-close';
        return undefined;
      }
    }
    numberPattern.lastIndex = index;
    const number = numberPattern.exec(text);
    if (number === null) return index;
    index += number[0].length;
    expectation = 'comma-or-close';
    return undefined;
  };

  while (true) {
    while (index < text.length && whitespace.has(text[index]!)) index++;
    if (done) return index < text.length ? fail(index) : undefined;
    const character = text[index];
    const container = stack.at(-1);
    const closer = container === '[' ? ']' : '}';
    let error: number | undefined;
    switch (expectation) {
      case 'value':
        error = scanValue();
        break;
      case 'value-or-close':
      case 'key-or-close':
        if (character === closer) {
          stack.pop();
          index++;
          expectation = 'comma-or-close';
        } else if (expectation === 'value-or-close') {
          error = scanValue();
        } else if (character === '"') {
          error = scanString();
          expectation = 'colon';
        } else {
          error = index;
        }
        break;
      case 'key':
        if (character !== '"') error = index;
        else {
          error = scanString();
          expectation = 'colon';
        }
        break;
      case 'colon':
        if (character !== ':') error = index;
        else {
          index++;
          expectation = 'value';
        }
        break;
      case 'comma-or-close':
        if (container === undefined) {
          done = true;
        } else if (character === ',') {
          index++;
          expectation = container === '[' ? 'value' : 'key';
        } else if (character === closer) {
          stack.pop();
          index++;
        } else {
          error = index;
        }
        break;
    }
    if (error !== undefined) return fail(error);
  }
}
