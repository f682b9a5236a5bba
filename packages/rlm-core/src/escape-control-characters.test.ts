import { describe, expect, test } from 'vitest';
import { escapeControlCharacters } from './escape-control-characters.js';

describe('escapeControlCharacters', () => {
  test('escape sequences a hostile answer uses are shown, not acted on', () => {
    const title = '\u001b]0;pwned\u0007';
    const clear = '\u001b[2J\u001b[H';
    const clipboard = '\u001b]52;c;ZWNobyBoaQ==\u0007';
    expect(escapeControlCharacters(`${title}${clear}${clipboard}`)).toBe(
      '\\x1b]0;pwned\\x07\\x1b[2J\\x1b[H\\x1b]52;c;ZWNobyBoaQ==\\x07',
    );
    expect(escapeControlCharacters('carriage\roverwrite\u009b31m')).toBe(
      'carriage\\roverwrite\\x9b31m',
    );
    expect(escapeControlCharacters('admin\u202e\u2066txt.exe')).toBe('admin\\u202e\\u2066txt.exe');
  });

  test('text, tabs, newlines and other scripts are kept exactly', () => {
    const text = 'Total:\t42\nnext line — déjà vu, 日本語, emoji 🎉, Arabic العربية';
    expect(escapeControlCharacters(text)).toBe(text);
  });
});
