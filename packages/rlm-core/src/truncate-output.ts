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

/** What replaces an output that would dump a large part of the context into the prompt. */
export const redactedOutput = '[redacted: output too large]';

/** Settings of {@link redactLargeOutput}. */
export interface RedactionSettings {
  /** Length of the context, in characters. */
  readonly contextLength: number;
  /** Outputs longer than `ratio * contextLength` are redacted. */
  readonly ratio: number;
  /** Outputs shorter than this are never redacted. */
  readonly minChars: number;
}

/**
 * Replaces `output` with {@link redactedOutput} when it is at least `minChars` long and longer
 * than `ratio` of the context: printing a large slice of the context would otherwise copy it
 * into every later prompt.
 */
export function redactLargeOutput(output: string, settings: RedactionSettings): string {
  if (output.length < settings.minChars) return output;
  if (settings.contextLength <= 0) return output;
  return output.length > settings.ratio * settings.contextLength ? redactedOutput : output;
}
