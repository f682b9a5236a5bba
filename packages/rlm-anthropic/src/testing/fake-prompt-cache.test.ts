import { describe, expect, test } from 'vitest';
import { FakePromptCache } from './fake-prompt-cache.js';

const mark = { cache_control: { type: 'ephemeral' } };
/** A text block of about `tokens` estimated tokens (4 characters a token). */
const text = (label: string, tokens: number, marked = false) => ({
  type: 'text',
  text: `${label} ${'x'.repeat(tokens * 4)}`,
  ...(marked ? mark : {}),
});

function body(blocks: object[]) {
  return { model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: blocks }] };
}

describe('FakePromptCache', () => {
  test('writes a prefix at a breakpoint, then reads it; new blocks are written', () => {
    const cache = new FakePromptCache({ minimumTokens: 100 });
    const first = cache.use(body([text('a', 200, true)]));
    expect(first.cacheReadTokens).toBe(0);
    expect(first.cacheWriteTokens).toBeGreaterThan(200);
    expect(first.inputTokens).toBe(0);
    const second = cache.use(body([text('a', 200), text('b', 150, true)]));
    expect(second.cacheReadTokens).toBe(first.cacheWriteTokens);
    expect(second.cacheWriteTokens).toBeGreaterThan(150);
    expect(second.inputTokens).toBe(0);
  });

  test('a prefix under the minimum is neither written nor read', () => {
    const cache = new FakePromptCache({ minimumTokens: 1_024 });
    const first = cache.use(body([text('a', 500, true)]));
    expect(first).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(first.inputTokens).toBeGreaterThan(500);
    expect(cache.use(body([text('a', 500, true)])).cacheReadTokens).toBe(0);
  });

  test('blocks after the last breakpoint are uncached input; no breakpoint, no cache', () => {
    const cache = new FakePromptCache({ minimumTokens: 10 });
    const usage = cache.use(body([text('a', 100, true), text('tail', 50)]));
    expect(usage.cacheWriteTokens).toBeGreaterThan(100);
    expect(usage.inputTokens).toBeGreaterThan(50);
    expect(usage.inputTokens).toBeLessThan(60);
    const plain = new FakePromptCache({ minimumTokens: 10 }).use(body([text('a', 100)]));
    expect(plain).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test('a read looks back at most 20 blocks from a breakpoint', () => {
    const cache = new FakePromptCache({ minimumTokens: 10 });
    const start = text('start', 100);
    cache.use(body([{ ...start, ...mark }]));
    const filler = (count: number) =>
      Array.from({ length: count }, (_, index) => text(`f${index}`, 5));
    const near = cache.use(body([start, ...filler(18), text('end', 5, true)]));
    expect(near.cacheReadTokens).toBeGreaterThan(100);
    const far = cache.use(body([start, ...filler(25), text('end2', 5, true)]));
    expect(far.cacheReadTokens).toBe(0);
  });

  test('a changed block before the breakpoint is a miss; another model has its own cache', () => {
    const cache = new FakePromptCache({ minimumTokens: 10 });
    cache.use(body([text('a', 100), text('b', 100, true)]));
    expect(cache.use(body([text('A', 100), text('b', 100, true)])).cacheReadTokens).toBe(0);
    expect(
      cache.use({ ...body([text('a', 100), text('b', 100, true)]), model: 'claude-other' })
        .cacheReadTokens,
    ).toBe(0);
  });
});
