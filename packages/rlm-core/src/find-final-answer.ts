/** A final answer written in prose, outside code. */
export type FinalAnswerMarker =
  | { readonly kind: 'final'; readonly answer: string }
  | { readonly kind: 'final-var'; readonly variable: string };

const markerStart = /^[ \t]*(FINAL_VAR|FINAL)\(/gm;

/**
 * Finds `FINAL(...)` or `FINAL_VAR(...)` in prose (text with code fences already removed).
 * A marker counts only at the start of a line and only when its parentheses balance (quotes
 * respected); so "I will call FINAL() later" is not an answer. The first valid marker wins.
 */
export function findFinalAnswer(prose: string): FinalAnswerMarker | undefined {
  for (const match of prose.matchAll(markerStart)) {
    const open = match.index + match[0].length;
    const close = findClosingParenthesis(prose, open);
    if (close === undefined) continue;
    const inner = prose.slice(open, close).trim();
    if (match[1] === 'FINAL_VAR') {
      const variable = unquote(inner);
      if (/^[A-Za-z_$][\w$]*$/.test(variable)) return { kind: 'final-var', variable };
      continue;
    }
    return { kind: 'final', answer: unquote(inner) };
  }
  return undefined;
}

/**
 * Index of the `)` closing the parenthesis opened just before `start`, if any. When the
 * argument starts with a quote, it is read as one string literal (so a `)` inside it does not
 * count); otherwise, or when the literal is not the whole argument, quotes are ordinary
 * characters, as apostrophes in prose are.
 */
function findClosingParenthesis(text: string, start: number): number | undefined {
  return closeAfterStringLiteral(text, start) ?? closeByBalance(text, start);
}

function closeAfterStringLiteral(text: string, start: number): number | undefined {
  let index = skipWhitespace(text, start);
  const quote = text[index];
  if (quote !== '"' && quote !== "'" && quote !== '`') return undefined;
  index += 1;
  while (index < text.length && text[index] !== quote) index += text[index] === '\\' ? 2 : 1;
  if (index >= text.length) return undefined;
  index = skipWhitespace(text, index + 1);
  return text[index] === ')' ? index : undefined;
}

function skipWhitespace(text: string, start: number): number {
  let index = start;
  while (index < text.length && /\s/.test(text[index]!)) index += 1;
  return index;
}

function closeByBalance(text: string, start: number): number | undefined {
  let depth = 1;
  for (let index = start; index < text.length; index += 1) {
    if (text[index] === '(') depth += 1;
    else if (text[index] === ')') {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return undefined;
}

/** Removes one pair of matching surrounding quotes, decoding a JSON string literal. */
function unquote(text: string): string {
  if (text.length < 2) return text;
  const first = text[0];
  if (first !== text[text.length - 1] || !(first === '"' || first === "'" || first === '`')) {
    return text;
  }
  if (first === '"') {
    try {
      const decoded: unknown = JSON.parse(text);
      if (typeof decoded === 'string') return decoded;
    } catch {
      // Not a JSON string literal: fall through and strip the quotes as they are.
    }
  }
  return text.slice(1, -1);
}
