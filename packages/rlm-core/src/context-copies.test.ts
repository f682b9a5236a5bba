import { describe, expect, test } from 'vitest';
import { ContextCopies, minCopyChars, redactContextCopies } from './context-copies.js';
import { cpuMsSince } from './testing/measure-slowdown.js';

/** Text of distinct sentences, so runs of it are found only where they were copied. */
function prose(sentences: number, seed = 0): string {
  return Array.from(
    { length: sentences },
    (_, index) => `Sentence ${index + seed} says the value ${(index + seed) * 7919} is kept.`,
  ).join(' ');
}

describe('ContextCopies', () => {
  test('finds a long verbatim run with where it came from, grown to its full length', () => {
    const context = prose(400);
    const copied = context.slice(5_000, 8_000);
    const output = `Summary: 12 matches.\n${copied}\nDone.`;
    expect(new ContextCopies(context).find(output)).toEqual([
      { start: 21, end: 21 + 3_000, path: 'context', offset: 5_000 },
    ]);
  });

  test('short quotes and computed text are not copies', () => {
    const context = prose(400);
    const quote = context.slice(1_000, 1_000 + minCopyChars - 1);
    const output = `${quote}\n${'computed line\n'.repeat(500)}`;
    expect(new ContextCopies(context).find(output)).toEqual([]);
  });

  test('names the string of an array or object context it came from', () => {
    const context = {
      docs: [{ text: prose(50) }, { text: prose(50, 1_000) }],
      'odd key': prose(20, 5_000),
    };
    const first = context.docs[1]!.text.slice(100, 600);
    const second = context['odd key'].slice(0, 300);
    const copies = new ContextCopies(context).find(`${first} and ${second}`);
    expect(copies.map((copy) => [copy.path, copy.offset, copy.end - copy.start])).toEqual([
      ['context.docs[1].text', 100, 500],
      ['context["odd key"]', 0, 300],
    ]);
  });

  test('a repetitive context is searched in bounded work', () => {
    const context = 'ab'.repeat(2_000_000);
    const before = process.cpuUsage();
    const copies = new ContextCopies(context).find('ab'.repeat(200_000));
    expect(copies).toHaveLength(1);
    expect(copies[0]!.end).toBe(400_000);
    // CPU time, which other processes do not stretch. Generous: only catches a search that went
    // quadratic (minutes).
    expect(cpuMsSince(before)).toBeLessThan(20_000);
  });
});

describe('redactContextCopies', () => {
  const context = prose(400);
  const settings = { contextLength: context.length, ratio: 0.25, minChars: 2_000 };

  test('a dump of a large part of the context is replaced by where it is; the rest stays', () => {
    const dump = context.slice(0, Math.ceil(context.length * 0.3));
    const shown = redactContextCopies(
      `Found 3.\n${dump}\nend`,
      new ContextCopies(context),
      settings,
    );
    expect(shown).toBe(
      `Found 3.\n[redacted: ${dump.length} characters copied verbatim from context.slice(0, ${dump.length}); work on them in code instead of printing them]\nend`,
    );
  });

  test('a long computed output over a small context is shown whole', () => {
    const summary = Array.from(
      { length: 300 },
      (_, index) => `line ${index}: total ${index * 3}`,
    ).join('\n');
    expect(summary.length).toBeGreaterThan(context.length * 0.25);
    expect(redactContextCopies(summary, new ContextCopies(context), settings)).toBe(summary);
  });

  test('copies under the ratio, under minChars, or with the ratio at Infinity stay', () => {
    const copies = new ContextCopies(context);
    const small = context.slice(0, Math.floor(context.length * 0.2));
    expect(redactContextCopies(small, copies, settings)).toBe(small);
    const whole = context.slice(0, 1_500);
    expect(
      redactContextCopies(whole, new ContextCopies(whole), { ...settings, contextLength: 1_500 }),
    ).toBe(whole);
    const dump = context.slice(0, context.length / 2);
    expect(
      redactContextCopies(dump, copies, { ...settings, ratio: Number.POSITIVE_INFINITY }),
    ).toBe(dump);
  });
});
