const identifierPattern = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u;
const reservedWords = new Set(
  (
    'await break case catch class const continue debugger default delete do else enum export ' +
    'extends false finally for function if implements import in instanceof interface let new ' +
    'null package private protected public return static super switch this throw true try ' +
    'typeof var void while with yield eval arguments'
  ).split(' '),
);

/** The prefix of names the sandbox keeps for itself. */
export const reservedPrefix = '__rlm';

/**
 * True when `name` can be a sandbox variable: an identifier that strict code can declare, not
 * starting with {@link reservedPrefix}.
 */
export function isIdentifierName(name: string): boolean {
  return (
    identifierPattern.test(name) && !reservedWords.has(name) && !name.startsWith(reservedPrefix)
  );
}
