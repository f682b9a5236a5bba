import { setTimeout as sleep } from 'node:timers/promises';
import { sleepScaled } from './measure-slowdown.js';

/**
 * Polls `condition` every few milliseconds until it holds. Throws `timed out waiting for
 * <what>` once `timeoutMs` of the reference machine's milliseconds have passed
 * ({@link sleepScaled}: the deadline grows with the machine's load), so that it catches a hang
 * and not a busy machine.
 *
 * @example
 * await waitUntil(() => server.requests.length > 0, 'the first request');
 */
export async function waitUntil(
  condition: () => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = new AbortController();
  let expired = false;
  const timer = sleepScaled(timeoutMs, deadline.signal).then(
    () => {
      expired = true;
    },
    () => {},
  );
  try {
    while (!condition()) {
      if (expired) throw new Error(`timed out waiting for ${what}`);
      await sleep(5);
    }
  } finally {
    deadline.abort();
    await timer;
  }
}
