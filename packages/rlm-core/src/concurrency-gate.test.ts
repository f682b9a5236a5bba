import { describe, expect, test } from 'vitest';
import { ConcurrencyGate } from './concurrency-gate.js';
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
