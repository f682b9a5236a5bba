import { describe, expect, test } from 'vitest';
import { stopOnSignals } from './stop-on-signals.js';

/** A signal source as `BatchCommandIo` takes one: `fire` calls every listener subscribed. */
function signalSource() {
  const listeners = new Set<() => void>();
  return {
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    fire: () => {
      for (const listener of listeners) listener();
    },
    get listeners() {
      return listeners.size;
    },
  };
}

describe('stopOnSignals', () => {
  test('the first signal is reported, then aborts with its exit code; a second forces the quit with it', async () => {
    const interrupt = signalSource();
    const terminate = signalSource();
    const seen: string[] = [];
    const stop = stopOnSignals(
      { onInterrupt: interrupt.subscribe, onTerminate: terminate.subscribe },
      (signal) => seen.push(`${signal} aborted=${stop.signal.aborted}`),
    );
    expect(stop.exitCode).toBeUndefined();
    terminate.fire();
    expect(seen).toEqual(['terminated aborted=false']);
    expect(stop.signal.aborted).toBe(true);
    expect(stop.exitCode).toBe(143);
    interrupt.fire();
    await expect(stop.forced).resolves.toBe(143);
    expect(seen).toHaveLength(1);
  });

  test('an interrupt exits 130; dispose unsubscribes both', () => {
    const interrupt = signalSource();
    const terminate = signalSource();
    const stop = stopOnSignals(
      { onInterrupt: interrupt.subscribe, onTerminate: terminate.subscribe },
      () => {},
    );
    interrupt.fire();
    expect(stop.exitCode).toBe(130);
    stop.dispose();
    expect(interrupt.listeners + terminate.listeners).toBe(0);
  });
});
