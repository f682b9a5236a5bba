/**
 * Text of an answer or an expected value: strings as they are, anything else as JSON (`42`,
 * `{"a":1}`).
 */
export function answerText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The form `exact` and `contains` compare: Unicode NFKC, lower case, runs of white space as one
 * space, trimmed, without quotes or backticks around the whole and without a final `.`, `!` or
 * `?`. `"The  Answer."` and `the answer` are equal.
 */
export function normalizeAnswer(text: string): string {
  let normalized = text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  normalized = normalized.replace(/[.!?]+$/, '').trim();
  const quoted = /^(["'`\u201c\u2018])(.*)(["'`\u201d\u2019])$/.exec(normalized);
  if (quoted) normalized = quoted[2]!.trim();
  return normalized;
}

/**
 * The tokens `f1` counts, as SQuAD does: lower case, punctuation and the articles a, an, the
 * removed, split on white space.
 */
export function answerTokens(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .split(/\s+/)
    .filter((token) => token !== '' && token !== 'a' && token !== 'an' && token !== 'the');
}
