import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { describeContext, measure } from './describe-context.js';
import { hashContext } from './hash-context.js';
import type { Sandbox } from './sandbox.js';
import { valueChars } from './features/session/session-memory.js';
import { Utf8Text } from './utf8-text.js';
import { VariableSpace } from './variable-space.js';

/** `text` as a Utf8Text over bytes at `offset` inside a larger buffer (shared when asked). */
function utf8TextOf(text: string, offset = 0, shared = false): Utf8Text {
  const encoded = new TextEncoder().encode(text);
  const buffer = shared
    ? new SharedArrayBuffer(offset + encoded.length)
    : new ArrayBuffer(offset + encoded.length);
  const bytes = new Uint8Array(buffer, offset, encoded.length);
  bytes.set(encoded);
  const made = Utf8Text.fromBytes(bytes);
  if (made === undefined) throw new Error('valid UTF-8 refused');
  return made;
}

/**
 * Strings of every width: ASCII, Latin-1, other BMP, astral (surrogate pairs); not starting
 * with U+FEFF, which would read as a byte order mark.
 */
const texts = fc
  .string({ unit: 'grapheme', maxLength: 200 })
  .filter((text) => !text.startsWith('\ufeff'));

describe('Utf8Text', () => {
  test('length, text, head and tail are those of the string, whatever the offset of its bytes', () => {
    fc.assert(
      fc.property(texts, fc.integer({ min: 0, max: 7 }), fc.boolean(), (text, offset, shared) => {
        const utf8 = utf8TextOf(text, offset, shared);
        expect(utf8.length).toBe(text.length);
        for (const count of [0, 1, 2, 3, 5, 17, text.length, text.length + 3]) {
          expect(utf8.head(count)).toBe(text.slice(0, count));
          expect(utf8.tail(count)).toBe(count === 0 ? '' : text.slice(-count));
        }
        expect(utf8.text()).toBe(text);
        expect(`${utf8}`).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  test('a long text: four bytes at a time agree with the string', () => {
    const text = 'plain ascii, é, ü, 中文, 😀 and more '.repeat(20_000);
    expect(utf8TextOf(text, 3).length).toBe(text.length);
  });

  test('refuses bytes that are not UTF-8; drops a byte order mark', () => {
    expect(Utf8Text.fromBytes(new Uint8Array([0x61, 0xff, 0x62]))).toBeUndefined();
    expect(Utf8Text.fromBytes(new Uint8Array([0xed, 0xa0, 0x80]))).toBeUndefined();
    const marked = Utf8Text.fromBytes(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]));
    expect(marked?.text()).toBe('hi');
    expect(marked?.length).toBe(2);
    expect(Utf8Text.isInstance(marked)).toBe(true);
    expect(Utf8Text.isInstance('hi')).toBe(false);
    expect(Utf8Text.isInstance({ bytes: new Uint8Array(), length: 0 })).toBe(false);
  });

  test('stands for its string in the digest, the description and the sizes', () => {
    for (const text of ['', 'a', 'é😀 x'.repeat(1000), 'line\n'.repeat(100_000)]) {
      const utf8 = utf8TextOf(text);
      expect(hashContext(utf8)).toBe(hashContext(text));
      expect(hashContext(utf8)).toBe(hashContext(text));
      expect(hashContext([utf8, 1])).toBe(hashContext([text, 1]));
      expect(describeContext(utf8)).toEqual(describeContext(text));
      expect(measure(utf8)).toBe(text.length);
      expect(valueChars(utf8)).toBe(text.length);
    }
  });

  test('reaches a sandbox that accepts it as it is, any other as its string', async () => {
    const seen: unknown[] = [];
    const sandboxOf = (acceptsUtf8Text: boolean) =>
      ({
        acceptsUtf8Text,
        setVariables: async (values: Record<string, unknown>) => {
          seen.push(values.context);
        },
      }) as unknown as Sandbox;
    const utf8 = utf8TextOf('some text');
    await new VariableSpace(sandboxOf(true)).injectAll({ context: utf8 });
    await new VariableSpace(sandboxOf(false)).injectAll({ context: utf8 });
    expect(seen).toEqual([utf8, 'some text']);
  });
});
