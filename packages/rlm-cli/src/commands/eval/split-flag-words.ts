import { UsageError } from '../../usage-error.js';

/**
 * Splits the flags of a `--variant name=flags` into words as a shell would: on white space,
 * with '...' and "..." quoting and a backslash escaping the next character. Throws a
 * {@link UsageError} for an unclosed quote.
 */
export function splitFlagWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let started = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (quote !== undefined) {
      if (character === quote) quote = undefined;
      else if (character === '\\' && quote === '"' && index + 1 < text.length)
        word += text[++index];
      else word += character;
    } else if (character === '"' || character === "'") {
      quote = character;
      started = true;
    } else if (character === '\\' && index + 1 < text.length) {
      word += text[++index];
      started = true;
    } else if (/\s/.test(character)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += character;
      started = true;
    }
  }
  if (quote !== undefined) {
    throw new UsageError(`the flags ${JSON.stringify(text)} have an unclosed ${quote}; close it`);
  }
  if (started) words.push(word);
  return words;
}
