import type { JsonReadAsText } from './load-context.js';

/** How many files the notice names before "and N more". */
const namedFiles = 3;

/**
 * The stderr notice for `.json` files that did not parse and were read as text: one line, the
 * count, the first few paths with where they stop parsing, and the flag that makes them an
 * error. Newline included; empty when there are none.
 */
export function formatJsonReadAsText(files: readonly JsonReadAsText[]): string {
  if (files.length === 0) return '';
  const named = files
    .slice(0, namedFiles)
    .map((file) => `${file.path} (${file.problem.replace(/\s+/g, ' ')})`)
    .join(', ');
  const more = files.length > namedFiles ? ` and ${files.length - namedFiles} more` : '';
  const one = files.length === 1;
  return `rlm: read ${files.length} .json ${one ? 'file' : 'files'} as text, ${one ? 'it is' : 'they are'} not valid JSON: ${named}${more}; --strict makes this an error\n`;
}
