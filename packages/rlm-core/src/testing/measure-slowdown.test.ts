import { describe, expect, test } from 'vitest';
import { cpuMsSince, measureSlowdown, sleepScaled, timeScaled } from './measure-slowdown.js';
import { waitUntil } from './wait-until.js';

describe('time bounds that scale with the machine', () => {
  test('the slowdown is a finite factor of at least 1', () => {
    const slowdown = measureSlowdown();
    expect(Number.isFinite(slowdown)).toBe(true);
    expect(slowdown).toBeGreaterThanOrEqual(1);
  });

  test('timeScaled passes the value through and divides the wall time by the slowdown', async () => {
    const timing = await timeScaled(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return 'value';
    });
    expect(timing.value).toBe('value');
    expect(timing.wallMs).toBeGreaterThanOrEqual(45);
    expect(timing.slowdown).toBeGreaterThanOrEqual(1);
    expect(timing.scaledMs).toBeCloseTo(timing.wallMs / timing.slowdown, 6);
  });

  test('sleepScaled waits at least its time and stops when its signal aborts', async () => {
    const { wallMs } = await timeScaled(() => sleepScaled(60));
    expect(wallMs).toBeGreaterThanOrEqual(55);
    const controller = new AbortController();
    const reason = new Error('stop');
    const sleeping = sleepScaled(600_000, controller.signal);
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
  });

  test('waitUntil resolves once the condition holds and names what it waited for when it never does', async () => {
    let ready = false;
    setTimeout(() => {
      ready = true;
    }, 30);
    await waitUntil(() => ready, 'the flag');
    expect(ready).toBe(true);
    await expect(waitUntil(() => false, 'a condition that never holds', 50)).rejects.toThrow(
      'timed out waiting for a condition that never holds',
    );
  });

  test('cpuMsSince counts CPU time, not waiting', async () => {
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(cpuMsSince(before)).toBeLessThan(300);
    const busyBefore = process.cpuUsage();
    let spins = 0;
    while (cpuMsSince(busyBefore) < 50) spins++;
    expect(spins).toBeGreaterThan(0);
    expect(cpuMsSince(busyBefore)).toBeGreaterThanOrEqual(50);
  });
});
