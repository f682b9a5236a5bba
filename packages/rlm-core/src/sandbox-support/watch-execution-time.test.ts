import { describe, expect, test } from 'vitest';
import { ExecutionClock } from './execution-clock.js';
import { watchExecutionTime } from './watch-execution-time.js';

/** Blocks this thread for `ms`, as a host function's synchronous work does. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy on purpose.
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('watchExecutionTime', () => {
  test('calls onTimeout once when the counted time reaches timeoutMs', async () => {
    const clock = new ExecutionClock(
      () => performance.now(),
      () => 0,
    );
    const reasons: string[] = [];
    const stop = watchExecutionTime(clock, { timeoutMs: 30, hostWaitMs: 0 }, (reason) =>
      reasons.push(reason),
    );
    await sleep(200);
    stop();
    expect(reasons).toEqual(['Execution timed out after 30 ms']);
  });

  test('while a call is pending and the worker idles, only hostWaitMs ends the execution', async () => {
    const clock = new ExecutionClock(
      () => performance.now(),
      () => 0,
    );
    const reasons: string[] = [];
    clock.callStarted();
    const stop = watchExecutionTime(clock, { timeoutMs: 30, hostWaitMs: 1_000 }, (reason) =>
      reasons.push(reason),
    );
    await sleep(60);
    expect(reasons).toEqual([]);
    for (let waited = 0; reasons.length === 0 && waited < 10_000; waited += 50) await sleep(50);
    stop();
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/awaiting host calls \(limit hostWaitMs 1000 ms\)$/);
  });

  test('host time spent on a call counts at once when the call starts, before any timer can run', () => {
    const clock = new ExecutionClock(
      () => performance.now(),
      () => 0,
    );
    const reasons: string[] = [];
    const stop = watchExecutionTime(clock, { timeoutMs: 30, hostWaitMs: 0 }, (reason) =>
      reasons.push(reason),
    );
    busyFor(60);
    clock.callStarted();
    // No timer has had a turn: the call's start said it.
    expect(reasons).toEqual(['Execution timed out after 30 ms']);
    clock.callSettled();
    clock.callStarted();
    expect(reasons).toHaveLength(1);
    stop();
  });

  test('its cleanup stops the watch', async () => {
    const clock = new ExecutionClock(
      () => performance.now(),
      () => 0,
    );
    const reasons: string[] = [];
    const stop = watchExecutionTime(clock, { timeoutMs: 20, hostWaitMs: 0 }, (reason) =>
      reasons.push(reason),
    );
    stop();
    busyFor(40);
    clock.callStarted();
    await sleep(60);
    expect(reasons).toEqual([]);
  });
});
