import { describe, expect, test, vi } from 'vitest';
import { ConcurrencyGate, type GateSlot } from './concurrency-gate.js';
import { AbortedError } from './errors/aborted-error.js';

describe('ConcurrencyGate', () => {
  test('runs at most limit tasks at once, in FIFO order', async () => {
    const gate = new ConcurrencyGate(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        gate.run(async () => {
          running += 1;
          peak = Math.max(peak, running);
          order.push(index);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running -= 1;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(gate.active).toBe(0);
  });

  test('a waiting task aborted leaves the queue without running', async () => {
    const gate = new ConcurrencyGate(1);
    let release!: () => void;
    const first = gate.run(() => new Promise<void>((resolve) => (release = resolve)));
    const abort = new AbortController();
    let ran = false;
    const second = gate.run(async () => {
      ran = true;
    }, abort.signal);
    abort.abort();
    await expect(second).rejects.toSatisfy(AbortedError.isInstance);
    release();
    await first;
    expect(ran).toBe(false);
    expect(gate.active).toBe(0);
  });

  test('a failing task releases its slot', async () => {
    const gate = new ConcurrencyGate(1);
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run(async () => 'ok')).resolves.toBe('ok');
  });

  test('hold keeps a slot until released; releasing twice frees one slot only', async () => {
    const gate = new ConcurrencyGate(1);
    const release = await gate.hold();
    let second = false;
    const waiting = gate.hold().then((releaseSecond) => {
      second = true;
      return releaseSecond;
    });
    await Promise.resolve();
    expect(second).toBe(false);
    release();
    release();
    const releaseSecond = await waiting;
    expect(gate.active).toBe(1);
    releaseSecond();
    expect(gate.active).toBe(0);
  });

  test('a hold whose signal aborts while waiting holds nothing', async () => {
    const gate = new ConcurrencyGate(1);
    const release = await gate.hold();
    const abort = new AbortController();
    const waiting = gate.hold(abort.signal);
    abort.abort();
    await expect(waiting).rejects.toSatisfy(AbortedError.isInstance);
    release();
    expect(gate.active).toBe(0);
  });
});

describe('ConcurrencyGate adapting to a rate-limited API', () => {
  /** Starts `count` tasks that each wait for `finish`; resolves once all have run or waited. */
  function startTasks(gate: ConcurrencyGate, count: number) {
    const started: number[] = [];
    const slots: GateSlot[] = [];
    const finishers: Array<() => void> = [];
    const done = Array.from({ length: count }, (_, index) =>
      gate.run(
        (slot) =>
          new Promise<void>((resolve) => {
            started.push(index);
            slots[index] = slot;
            finishers[index] = resolve;
          }),
      ),
    );
    return { started, slots, finishers, done };
  }

  const settle = () => new Promise((resolve) => setImmediate(resolve));

  test('starts at the cap; one burst of 429s halves it once, a later generation again', async () => {
    const gate = new ConcurrencyGate(8);
    expect(gate.level).toBe(8);
    const tasks = startTasks(gate, 8);
    await settle();
    expect(tasks.started).toHaveLength(8);
    for (const slot of tasks.slots) slot.rateLimited(undefined);
    expect(gate.level).toBe(4);
    for (const finish of tasks.finishers) finish();
    await Promise.all(tasks.done);
    // Started after the halving: its 429 halves again.
    const later = startTasks(gate, 1);
    await settle();
    later.slots[0]?.rateLimited(undefined);
    later.slots[0]?.rateLimited(undefined);
    expect(gate.level).toBe(2);
    later.finishers[0]?.();
    await later.done[0];
    const last = startTasks(gate, 1);
    await settle();
    last.slots[0]?.rateLimited(undefined);
    last.finishers[0]?.();
    await last.done[0];
    const floor = startTasks(gate, 1);
    await settle();
    floor.slots[0]?.rateLimited(undefined);
    expect(gate.level).toBe(1);
    floor.finishers[0]?.();
    await floor.done[0];
  });

  test('each task of the current generation answered without a 429 raises the level by one, up to the cap', async () => {
    const gate = new ConcurrencyGate(4);
    const first = startTasks(gate, 3);
    await settle();
    first.slots[0]?.rateLimited(undefined);
    expect(gate.level).toBe(2);
    // Started before the halving: their answers do not raise it.
    first.finishers[1]?.();
    first.finishers[2]?.();
    first.finishers[0]?.();
    await Promise.all(first.done);
    expect(gate.level).toBe(2);
    for (let round = 0; round < 3; round++) {
      const next = startTasks(gate, 1);
      await settle();
      next.finishers[0]?.();
      await next.done[0];
    }
    expect(gate.level).toBe(4);
  });

  test('a lower level holds the waiting tasks back until fewer than it run', async () => {
    const gate = new ConcurrencyGate(4);
    const first = startTasks(gate, 4);
    await settle();
    first.slots[0]?.rateLimited(undefined);
    const waiting = startTasks(gate, 3);
    await settle();
    expect(waiting.started).toEqual([]);
    first.finishers[0]?.();
    first.finishers[1]?.();
    await settle();
    // Two still run, the level is two: none starts.
    expect(waiting.started).toEqual([]);
    first.finishers[2]?.();
    await settle();
    expect(waiting.started).toEqual([0]);
    first.finishers[3]?.();
    for (const finish of [0, 1, 2]) {
      await settle();
      waiting.finishers[finish]?.();
    }
    await Promise.all([...first.done, ...waiting.done]);
    expect(gate.active).toBe(0);
  });

  test("the API's retry-after holds every new start that long", async () => {
    vi.useFakeTimers();
    try {
      const gate = new ConcurrencyGate(4);
      const first = startTasks(gate, 1);
      await vi.advanceTimersByTimeAsync(0);
      first.slots[0]?.rateLimited(2_000);
      const next = startTasks(gate, 1);
      await vi.advanceTimersByTimeAsync(1_999);
      expect(next.started).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(next.started).toEqual([0]);
      first.finishers[0]?.();
      next.finishers[0]?.();
      await Promise.all([...first.done, ...next.done]);
    } finally {
      vi.useRealTimers();
    }
  });

  test('pauseFor gives the slot up during the wait, then queues ahead of tasks not yet started', async () => {
    vi.useFakeTimers();
    try {
      const gate = new ConcurrencyGate(1);
      const order: string[] = [];
      const retried = gate.run(async (slot) => {
        order.push('first attempt');
        await slot.pauseFor(100);
        order.push('retry');
      });
      await vi.advanceTimersByTimeAsync(0);
      const other = gate.run(async () => {
        order.push('other');
        await new Promise((resolve) => setTimeout(resolve, 500));
      });
      await vi.advanceTimersByTimeAsync(0);
      // The slot was given up: the other task runs during the wait.
      expect(order).toEqual(['first attempt', 'other']);
      const third = gate.run(async () => {
        order.push('third');
      });
      await vi.advanceTimersByTimeAsync(1_000);
      await Promise.all([retried, other, third]);
      expect(order).toEqual(['first attempt', 'other', 'retry', 'third']);
      expect(gate.active).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  test('an abort during pauseFor rejects and holds nothing', async () => {
    const gate = new ConcurrencyGate(1);
    const abort = new AbortController();
    const run = gate.run(async (slot) => {
      const paused = slot.pauseFor(60_000);
      abort.abort(new AbortedError());
      await paused;
    }, abort.signal);
    await expect(run).rejects.toSatisfy(AbortedError.isInstance);
    expect(gate.active).toBe(0);
    await expect(gate.run(async () => 'free')).resolves.toBe('free');
  });

  test('under random 429s, never more tasks at once than the cap or the level when they started', async () => {
    const gate = new ConcurrencyGate(6);
    let running = 0;
    let peak = 0;
    let seed = 11;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    await Promise.all(
      Array.from({ length: 300 }, () =>
        gate.run(async (slot) => {
          running += 1;
          peak = Math.max(peak, running);
          expect(gate.active).toBeLessThanOrEqual(gate.level);
          await new Promise((resolve) => setImmediate(resolve));
          if (random() < 0.2) {
            slot.rateLimited(undefined);
            running -= 1;
            await slot.pauseFor(1);
            running += 1;
            expect(gate.active).toBeLessThanOrEqual(gate.level);
          }
          running -= 1;
        }),
      ),
    );
    expect(peak).toBeLessThanOrEqual(6);
    expect(gate.active).toBe(0);
  });
});
