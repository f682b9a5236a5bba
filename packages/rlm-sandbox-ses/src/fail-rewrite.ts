/** Where a rewrite failed: a `SyntaxError` naming the line. */
function lineOf(code: string, position: number): number {
  let line = 1;
  for (let i = 0; i < position && i < code.length; i++) {
    if (code.charCodeAt(i) === 10) line++;
  }
  return line;
}

export function failRewrite(code: string, position: number, message: string): never {
  throw new SyntaxError(`${message} (line ${lineOf(code, position)})`);
}
