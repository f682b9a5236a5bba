import { describe, expect, test } from 'vitest';
import { buildContextMessage } from '../../prompts.js';
import { describeEvictions } from './describe-evictions.js';
import { describeContext } from '../../describe-context.js';
import { SessionMemory, valueChars } from './session-memory.js';

describe('SessionMemory without a store (drop)', () => {
  test('keeps at most maxContexts, evicting the oldest but never the current one', async () => {
    const memory = new SessionMemory({ maxContexts: 2 });
    const contexts = ['a', 'b', 'c'].map((letter) => letter.repeat(10));
    const admitted = contexts.map((context) => memory.admit(context));
    expect(admitted.map((entry) => entry.index)).toEqual([0, 1, 2]);
    // The same value given again (by identity) keeps its index while it is in memory.
    expect(memory.admit(contexts[0])).toEqual({ index: 0, added: false });
    // context_0 is the current one: context_1 goes, the oldest of the others.
    await expect(memory.enforce(0)).resolves.toEqual({
      context_1: "[context_1 was dropped from this session's memory (sessionMemory); it is gone]",
    });
    expect(memory.counts).toEqual({
      contexts: 3,
      histories: 0,
      evicted: { overflow: 'drop', contexts: [1], histories: 0 },
    });
    expect(memory.contextNames).toEqual(['context_0', 'context_1', 'context_2']);
    // A value no longer in memory gets a new index when given again.
    expect(memory.admit(contexts[1])).toEqual({ index: 3, added: true });
    await expect(memory.enforce(3)).resolves.toHaveProperty('context_0');
    expect(memory.counts.evicted?.contexts).toEqual([0, 1]);
  });

  test('maxContextChars counts string lengths and JSON text; a lone large current context stays', async () => {
    const memory = new SessionMemory({ maxContextChars: 100 });
    memory.admit('x'.repeat(50));
    const json = memory.admit({ rows: ['y'.repeat(30)] }); // its JSON text is 43 characters
    await expect(memory.enforce(json.index)).resolves.toEqual({});
    const big = memory.admit('z'.repeat(500));
    const evicted = await memory.enforce(big.index);
    expect(Object.keys(evicted)).toEqual(['context_0', 'context_1']);
    expect(memory.counts.evicted?.contexts).toEqual([0, 1]);
  });

  test('maxHistoryEntries keeps the newest entries; the count of earlier queries stays whole', async () => {
    const memory = new SessionMemory({ maxHistoryEntries: 2 });
    const { index } = memory.admit('c');
    for (let query = 0; query < 5; query += 1) {
      memory.record({ query: `q${query}`, answer: query, iterations: 1 });
    }
    await memory.enforce(index);
    expect(memory.history.map((entry) => entry.query)).toEqual(['q3', 'q4']);
    expect(memory.counts).toMatchObject({ histories: 5, evicted: { histories: 3 } });
  });

  test('maxHistoryChars counts each query and answer, keeping the newest entries that fit', async () => {
    const memory = new SessionMemory({ maxHistoryChars: 100 });
    const { index } = memory.admit('c');
    memory.record({ query: 'q0', answer: 'a'.repeat(58), iterations: 1 }); // 60
    memory.record({ query: 'q1', answer: { rows: [1, 2, 3] }, iterations: 1 }); // 2 + 16
    memory.record({ query: 'q2', answer: 'b'.repeat(38), iterations: 1 }); // 40
    await memory.enforce(index);
    expect(memory.history.map((entry) => entry.query)).toEqual(['q1', 'q2']);
    // One answer larger than the bound leaves history empty rather than over it.
    memory.record({ query: 'q3', answer: 'x'.repeat(500), iterations: 1 });
    await memory.enforce(index);
    expect(memory.history).toEqual([]);
    expect(memory.counts).toMatchObject({ histories: 4, evicted: { histories: 4 } });
  });

  test('reset forgets contexts, history and evictions', async () => {
    const memory = new SessionMemory({ maxContexts: 1, maxHistoryEntries: 1 });
    memory.admit('a');
    memory.record({ query: 'q', answer: 'a', iterations: 1 });
    memory.record({ query: 'q2', answer: 'a', iterations: 1 });
    await memory.enforce(memory.admit('b').index);
    memory.reset();
    expect(memory.counts).toEqual({ contexts: 0, histories: 0 });
    expect(memory.history).toEqual([]);
    expect(memory.admit('a')).toEqual({ index: 0, added: true });
  });

  test('bad settings are one clear TypeError each', () => {
    expect(() => new SessionMemory({ maxContexts: 0 })).toThrow(
      'session.memory.maxContexts must be a positive integer, got 0',
    );
    expect(() => new SessionMemory({ maxHistoryEntries: 1.5 })).toThrow(/maxHistoryEntries/);
    expect(() => new SessionMemory({ overflow: 'spill' })).toThrow(
      "session.memory.overflow 'spill' needs an artifact store",
    );
    expect(() => new SessionMemory({ overflow: 'keep' as never })).toThrow(
      "session.memory.overflow must be 'drop' or 'spill'",
    );
  });
});

describe('the prompt says what a bounded session moved', () => {
  test('spilled contexts as ranges, and history with how to load it', () => {
    expect(describeEvictions({ overflow: 'spill', contexts: [0, 1, 2, 5], histories: 3 }, 7)).toBe(
      'session memory is bounded: context_0..context_2, context_5 are no longer in memory: `await load("context_N")` gets one back; `history` holds the last 4 queries before this one; the 3 earlier ones are stored as history_0..history_2 (`await load("history_N")`)',
    );
    expect(describeEvictions({ overflow: 'drop', contexts: [], histories: 1 }, 2)).toBe(
      'session memory is bounded: `history` holds the last 1 query before this one; the 1 earlier one was dropped',
    );
  });

  test('the context message carries the line only once something was moved', async () => {
    const description = describeContext('text');
    expect(buildContextMessage('q', description, { contexts: 2, histories: 1 })).not.toContain(
      'session memory',
    );
    const memory = new SessionMemory({ maxContexts: 1 });
    memory.admit('a');
    memory.record({ query: 'q0', answer: 'a0', iterations: 1 });
    const { index } = memory.admit('b');
    await memory.enforce(index);
    const message = buildContextMessage('q', description, memory.setupCounts);
    expect(message).toContain('- session memory is bounded: context_0 was dropped and is gone');
  });
});

describe('valueChars', () => {
  test('a string counts its length; JSON data about its JSON text', () => {
    expect(valueChars('abc')).toBe(3);
    const data = { name: 'x', list: [1, 22, true, null] };
    const json = JSON.stringify(data).length;
    expect(valueChars(data)).toBeGreaterThanOrEqual(json - 4);
    expect(valueChars(data)).toBeLessThanOrEqual(json + 4);
  });

  test('a value shared at 2^60 places or a cycle is held once: measured at once', () => {
    let nested: unknown[] = [];
    for (let level = 0; level < 60; level++) nested = [nested, nested];
    expect(valueChars(nested)).toBeLessThan(1_000);
    const cycle: Record<string, unknown> = { text: 'x'.repeat(100) };
    cycle.self = cycle;
    expect(valueChars(cycle)).toBeLessThan(200);
  });

  test('a session records an answer with shared references without walking every path', () => {
    const memory = new SessionMemory({ maxHistoryChars: 10_000 });
    let nested: unknown[] = [];
    for (let level = 0; level < 60; level++) nested = [nested, nested];
    memory.record({ query: 'nested?', answer: nested, iterations: 2 });
    expect(memory.history).toHaveLength(1);
  });
});
