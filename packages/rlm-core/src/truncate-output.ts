/**
 * Keeps the head and tail of `output` when it is longer than `maxChars`, with an explicit
 * marker stating how much was left out and the true length. Deterministic: the same input
 * always gives the same result. The result is at most `maxChars` plus the marker line, which
 * calls the text `what` (`output` unless told).
 */
export function truncateOutput(output: string, maxChars: number, what = 'output'): string {
  if (output.length <= maxChars) return output;
  const headChars = Math.ceil(maxChars / 2);
  const tailChars = maxChars - headChars;
  const omitted = output.length - maxChars;
  const head = output.slice(0, headChars);
  const tail = tailChars > 0 ? output.slice(output.length - tailChars) : '';
  return `${head}\n[... ${omitted} characters omitted; the ${what} was ${output.length} characters ...]\n${tail}`;
}
