/**
 * Characters a terminal acts on rather than shows: C0 controls but tab and newline (ESC starts
 * every escape sequence: window titles, screen clears, OSC 52 clipboard writes), DEL, C1
 * controls, and the bidirectional overrides and isolates that reorder what a reader sees.
 */
const actionableCharacters =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every character a terminal would act on written out as a visible escape (`\x1b`,
 * `\r`, `\u202e`), tabs and newlines kept. Model-made text is untrusted: an app that prints an
 * answer, a tool's contract or code to a terminal should pass it through this first. Keep the
 * exact bytes for pipes, files and JSON.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(actionableCharacters, (character) => {
    const code = character.charCodeAt(0);
    if (character === '\r') return '\\r';
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
