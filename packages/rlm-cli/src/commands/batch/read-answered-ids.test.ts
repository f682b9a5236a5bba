import { describe, expect, test } from 'vitest';
import { readAnsweredIds } from './read-answered-ids.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('readAnsweredIds', () => {
  test('an empty file has no answered ids and ends whole', () => {
    expect(readAnsweredIds(bytes(''))).toEqual({ keys: new Set(), tail: { kind: 'whole' } });
  });

  test('answers count by the string form of their id; errors and a torn last line do not', () => {
    const lines = [
      '{"id":1,"answer":"one","durationMs":3}',
      '{"id":"2","answer":null}',
      '{"id":3,"error":{"name":"ModelCallError","message":"x"}}',
    ];
    const torn = '{"id":4,"answer":"fo';
    const answered = readAnsweredIds(bytes(`${lines.join('\n')}\n${torn}`));
    expect([...answered.keys].sort()).toEqual(['1', '2']);
    expect(answered.tail).toEqual({
      kind: 'torn',
      keepBytes: Buffer.byteLength(`${lines.join('\n')}\n`),
      tornBytes: Buffer.byteLength(torn),
    });
  });

  test('a last line whole but for its newline counts, and only needs the newline', () => {
    const answered = readAnsweredIds(bytes('{"id":"a","answer":1}\n{"id":"b","answer":"é"}'));
    expect([...answered.keys]).toEqual(['a', 'b']);
    expect(answered.tail).toEqual({ kind: 'unterminated' });
  });

  test('every prefix of a result line is torn: none can pass as an answer', () => {
    const line = JSON.stringify({ id: 7, answer: { text: 'a "quoted" } brace', n: [1, 2] } });
    const whole = bytes(line);
    for (let end = 1; end < whole.byteLength; end++) {
      const answered = readAnsweredIds(whole.subarray(0, end));
      expect(answered.keys.size).toBe(0);
      expect(answered.tail.kind).toBe('torn');
    }
  });
});
