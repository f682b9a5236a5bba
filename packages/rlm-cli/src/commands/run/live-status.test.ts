import { afterEach, describe, expect, test, vi } from 'vitest';
import { LiveStatus } from './live-status.js';

function terminal() {
  const writes: string[] = [];
  return { writes, output: { write: (text: string) => writes.push(text) } };
}

describe('LiveStatus', () => {
  test('lines go above the status line, which is redrawn after them and cleared at the end', () => {
    const { writes, output } = terminal();
    let now = 1_000;
    const live = new LiveStatus(output, { width: 60, now: () => now });
    live.set('step 1 · waiting for the model');
    now = 3_500;
    live.write('● step 1\n');
    live.stop();
    expect(writes).toEqual([
      '\r\u001b[2K⠙ step 1 · waiting for the model · 0.0 s',
      '\r\u001b[2K',
      '● step 1\n',
      '\r\u001b[2K⠹ step 1 · waiting for the model · 2.5 s',
      '\r\u001b[2K',
    ]);
  });

  test('without a status, lines are written as they are; a long status is cut to the width', () => {
    const { writes, output } = terminal();
    const live = new LiveStatus(output, { width: 24, now: () => 0 });
    live.write('plain\n');
    live.set('llm_query 23/40 · a long explanation');
    live.stop();
    expect(writes[0]).toBe('plain\n');
    expect(writes[1]).toBe('\r\u001b[2K⠙ llm_query 23/40 · a …');
    expect(writes[1]!.length - '\r\u001b[2K'.length).toBeLessThanOrEqual(23);
  });

  test('a text changing on every host call is drawn once a frame, not once a change', () => {
    vi.useFakeTimers();
    const { writes, output } = terminal();
    const live = new LiveStatus(output, { width: 60, now: () => 0 });
    for (let settled = 0; settled <= 20_000; settled++) live.set(`llm_query ${settled}/20000`);
    expect(writes).toEqual(['\r\u001b[2K⠙ llm_query 0/20000 · 0.0 s']);
    vi.advanceTimersByTime(100);
    expect(writes.at(-1)).toBe('\r\u001b[2K⠹ llm_query 20000/20000 · 0.0 s');
    expect(writes).toHaveLength(2);
    live.stop();
  });
});

afterEach(() => {
  vi.useRealTimers();
});
