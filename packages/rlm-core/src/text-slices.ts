/**
 * Cuts `text` into slices of at most `size` UTF-16 code units, never between the two halves of
 * a surrogate pair, so each slice encodes to UTF-8 exactly as its part of the whole does.
 */
export function* textSlices(text: string, size: number): Generator<string> {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    if (end < text.length && end - start > 1 && isHighSurrogate(text.charCodeAt(end - 1))) {
      end -= 1;
    }
    yield text.slice(start, end);
    start = end;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
