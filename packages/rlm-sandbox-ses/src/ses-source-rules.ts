/**
 * SES's source rules: SES rejects any source containing `import(`, `<!--`, `-->` or `eval(`,
 * even inside strings. Those sequences are escaped inside strings, templates and regular
 * expressions, comments holding them are blanked and operators are spaced; what is left is
 * refused with a clear error.
 */
import type { Comment, Token } from 'acorn';
import { failRewrite } from './fail-rewrite.js';
import { loadedAcorn } from './load-acorn.js';
import { regExpName } from './rewrite-names.js';
import type { SourceEdits } from './source-edits.js';

const sesPatterns = [
  { pattern: /<!--|-->/, what: 'an HTML comment marker' },
  { pattern: /(^|[^.]|\.\.\.)\bimport(\s*(?:\(|\/[/*]))/, what: 'import(' },
  { pattern: /(^|[^.])\beval(\s*\()/, what: 'eval(' },
];
const literalHazard = /<!--|-->|\bimport(?=\s*(?:\(|\/[/*]))|\beval(?=\s*\()/g;
const hexEscapes: Record<string, string> = {
  '<': '\\x3C',
  '-': '\\x2D',
  i: '\\x69',
  e: '\\x65',
};

/** Escapes the hazards of `text`, raw string or template content, as its escapes allow. */
function escapeHazards(text: string): string {
  return text.replace(literalHazard, (match, offset: number) => {
    let backslashes = 0;
    while (offset - backslashes - 1 >= 0 && text[offset - backslashes - 1] === '\\') backslashes++;
    const hexEscape = hexEscapes[match[0] as string] as string;
    // An odd run of backslashes already escapes the first character: drop that backslash.
    return backslashes % 2 === 1
      ? `${hexEscape.slice(1)}${match.slice(1)}`
      : hexEscape + match.slice(1);
  });
}

function hasHazard(text: string): boolean {
  literalHazard.lastIndex = 0;
  return literalHazard.test(text);
}

/**
 * Escapes hazards in the literals and comments of `code` (its `tokens` and `comments`), and
 * spaces operators that spell them, as `edits`.
 */
export function neutralizeTokens(
  code: string,
  edits: SourceEdits,
  tokens: readonly Token[],
  comments: readonly Comment[],
): void {
  const literalRanges: [number, number][] = [];
  const { tokTypes } = loadedAcorn();
  for (const token of tokens) {
    if (token.type === tokTypes.string || token.type === tokTypes.template) {
      literalRanges.push([token.start, token.end]);
      const text = code.slice(token.start, token.end);
      if (hasHazard(text)) edits.replace(token.start, token.end, escapeHazards(text));
    } else if (token.type === tokTypes.regexp) {
      literalRanges.push([token.start, token.end]);
      const text = code.slice(token.start, token.end);
      if (hasHazard(text)) {
        const { pattern, flags } = (token as Token & { value: { pattern: string; flags: string } })
          .value;
        edits.replace(
          token.start,
          token.end,
          `new ${regExpName}(${escapeHazards(JSON.stringify(pattern))}, ${JSON.stringify(flags)})`,
        );
      }
    }
  }
  for (const comment of comments) {
    literalRanges.push([comment.start, comment.end]);
    const text = code.slice(comment.start, comment.end);
    if (hasHazard(text)) {
      edits.replace(comment.start, comment.end, text.replace(/[^\n\r\u2028\u2029]/g, ' '));
    }
  }
  const inLiteral = (position: number) =>
    literalRanges.some(([start, end]) => position >= start && position < end);
  for (const match of code.matchAll(/<!--|-->/g)) {
    if (inLiteral(match.index)) continue;
    // In code these are operators: `a < !--b`, `a-- > b`.
    edits.insert(match.index + (match[0] === '<!--' ? 1 : 2), ' ');
  }
}

/**
 * Checks rewritten `source` against SES's source rules.
 *
 * @throws SyntaxError naming what it spells, where no rewrite could help.
 */
export function checkSesSourceRules(source: string): void {
  for (const { pattern, what } of sesPatterns) {
    const match = pattern.exec(source);
    if (match) {
      failRewrite(
        source,
        match.index,
        `The sandbox cannot run code that spells ${what} here; rename or rephrase it`,
      );
    }
  }
}
