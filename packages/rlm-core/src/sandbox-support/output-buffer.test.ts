import { describe, expect, test } from 'vitest';
import { OutputBuffer } from './output-buffer.js';

describe('OutputBuffer', () => {
  test('keeps what fits, counts the rest, and resets', () => {
    const buffer = OutputBuffer.create(10);
    buffer.write('hello ');
    expect(buffer.remaining).toBe(4);
    buffer.write('world and more');
    expect(buffer.read()).toBe('hello worl\n[… 10 more characters of output dropped]');
    buffer.reset();
    buffer.write('😀 ok');
    expect(buffer.read()).toBe('😀 ok');
  });

  test('a second view on the same memory reads what the first wrote', () => {
    const writer = OutputBuffer.create(100);
    const reader = new OutputBuffer(writer.buffer);
    writer.write('shared across threads');
    expect(reader.read()).toBe('shared across threads');
  });
});
