import { describe, expect, test } from 'vitest';
import { ExecutionClock } from './execution-clock.js';

/** A wall clock and a busy clock the test moves by hand. */
function clocks() {
  const time = { wall: 1_000, busy: 50 };
  const clock = new ExecutionClock(
    () => time.wall,
    () => time.busy,
  );
  const pass = (wallMs: number, busyMs: number) => {
    time.wall += wallMs;
    time.busy += busyMs;
  };
  return { clock, pass };
}

describe('ExecutionClock', () => {
  test('counts wall time while no host call is pending, busy or idle', () => {
    const { clock, pass } = clocks();
    pass(100, 100);
    pass(200, 0);
    expect(clock.countedMs()).toBe(300);
  });

  test('counts only busy time while a call is pending', () => {
    const { clock, pass } = clocks();
    pass(10, 10);
    clock.callStarted();
    pass(5_000, 0); // awaiting a model, idle
    expect(clock.countedMs()).toBe(10);
    pass(400, 400); // computing while the call stays pending
    expect(clock.countedMs()).toBe(410);
    clock.callSettled();
    pass(30, 5);
    expect(clock.countedMs()).toBe(440);
  });

  test('overlapping calls keep the busy rule until the last settles', () => {
    const { clock, pass } = clocks();
    clock.callStarted();
    clock.callStarted();
    pass(1_000, 20);
    clock.callSettled();
    pass(1_000, 30);
    expect(clock.countedMs()).toBe(50);
    clock.callSettled();
    pass(100, 0);
    expect(clock.countedMs()).toBe(150);
    // A settle with nothing pending changes nothing.
    clock.callSettled();
    pass(100, 0);
    expect(clock.countedMs()).toBe(250);
  });
});
