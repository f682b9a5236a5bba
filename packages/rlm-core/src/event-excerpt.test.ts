import { describe, expect, test } from 'vitest';
import { argumentsExcerpt, eventExcerpt } from './event-excerpt.js';
import { cpuMsSince } from './testing/measure-slowdown.js';

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
    expect(eventExcerpt(cyclic)).toMatch(/^\[an object not shown: .*\$\.self/);
    const hostile = {
      toJSON() {
        throw new Error('no');
      },
      toString() {
        throw new Error('no');
      },
    };
    expect(eventExcerpt(hostile)).toMatch(/^\[an object not shown: \$\.toJSON is a function/);
    const throwingGetter = Object.defineProperty({}, 'secret', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    expect(eventExcerpt(throwingGetter)).toBe('[object Object]');
  });

  test('describes a value too shared to write out instead of expanding it', () => {
    let shared: unknown[] = [];
    for (let level = 0; level < 60; level++) shared = [shared, shared];
    const cpuBefore = process.cpuUsage();
    expect(eventExcerpt(shared)).toMatch(/^\[an array not shown: it has more than 10000 values/);
    // CPU time, which a busy machine does not stretch: 2^60 values were never visited.
    expect(cpuMsSince(cpuBefore)).toBeLessThan(5_000);
  });

  test('shows a lone argument on its own and several as a list', () => {
    expect(argumentsExcerpt(['What is 2 + 2?'])).toBe('What is 2 + 2?');
    expect(argumentsExcerpt(['q', { part: 1 }])).toBe('["q",{"part":1}]');
  });
});
