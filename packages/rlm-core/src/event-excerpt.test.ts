import { describe, expect, test } from 'vitest';
import { argumentsExcerpt, eventExcerpt } from './event-excerpt.js';

describe('eventExcerpt', () => {
  test('keeps short strings and encodes other values as JSON', () => {
    expect(eventExcerpt('hello')).toBe('hello');
    expect(eventExcerpt({ a: [1, 2] })).toBe('{"a":[1,2]}');
    expect(eventExcerpt(undefined)).toBe('undefined');
  });

  test('cuts long text and states the full length', () => {
    const text = eventExcerpt('x'.repeat(1000), 10);
    expect(text).toBe('xxxxxxxxxx… (1000 chars)');
  });

  test('never throws on cycles or hostile getters', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(eventExcerpt(cyclic)).toBe('[object Object]');
    const hostile = {
      toJSON() {
        throw new Error('no');
      },
      toString() {
        throw new Error('no');
      },
    };
    expect(eventExcerpt(hostile)).toBe('[unreadable value]');
  });

  test('shows a lone argument on its own and several as a list', () => {
    expect(argumentsExcerpt(['What is 2 + 2?'])).toBe('What is 2 + 2?');
    expect(argumentsExcerpt(['q', { part: 1 }])).toBe('["q",{"part":1}]');
  });
});
