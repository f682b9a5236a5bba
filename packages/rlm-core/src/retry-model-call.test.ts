import { describe, expect, test } from 'vitest';
import type { ModelRetry } from './language-model.js';
import { type RetryGiveUp, retryModelCall } from './retry-model-call.js';

const transient = {
  retryable: true,
  retryAfterMs: 0,
  retry: { reason: 'server', detail: '503' },
} as const;

describe('retryModelCall', () => {
  test('retries a transient failure, reporting each wait, until an attempt succeeds', async () => {
    const retries: ModelRetry[] = [];
    let attempts = 0;
    const result = await retryModelCall({
      attempt: async () => {
        attempts += 1;
        if (attempts < 3) throw new Error('busy');
        return 'done';
      },
      judge: () => transient,
      giveUp: () => new Error('never'),
      maxRetries: 2,
      maxRetryAfterMs: 1_000,
      onRetry: (retry) => retries.push(retry),
    });
    expect(result).toBe('done');
    expect(
      retries.map((retry) => [retry.attempt, retry.maxAttempts, retry.requestedByApi]),
    ).toEqual([
      [2, 3, true],
      [3, 3, true],
    ]);
  });

  test('gives up after maxRetries, at once on a final failure, and on a wait past the cap', async () => {
    const contexts: RetryGiveUp[] = [];
    const run = (
      verdict:
        | typeof transient
        | { retryable: boolean; retryAfterMs: number | undefined; retry: typeof transient.retry },
    ) =>
      retryModelCall({
        attempt: () => Promise.reject(new Error('busy')),
        judge: () => verdict,
        giveUp: (_error, _verdict, context) => {
          contexts.push(context);
          return new Error('gave up');
        },
        maxRetries: 1,
        maxRetryAfterMs: 1_000,
      });
    await expect(run(transient)).rejects.toThrow('gave up');
    await expect(run({ ...transient, retryable: false })).rejects.toThrow('gave up');
    await expect(run({ ...transient, retryAfterMs: 60_000 })).rejects.toThrow('gave up');
    expect(contexts.map(({ attempts, refusedWait }) => [attempts, refusedWait])).toEqual([
      [2, undefined],
      [1, undefined],
      [1, { retryAfterMs: 60_000, maxRetryAfterMs: 1_000 }],
    ]);
  });

  test('an abort during a wait rejects with its reason and makes no further attempt', async () => {
    const controller = new AbortController();
    let attempts = 0;
    const pending = retryModelCall({
      attempt: () => {
        attempts += 1;
        return Promise.reject(new Error('busy'));
      },
      judge: () => ({ ...transient, retryAfterMs: 60_000 }),
      giveUp: () => new Error('never'),
      maxRetries: 3,
      maxRetryAfterMs: 120_000,
      signal: controller.signal,
      onRetry: () => controller.abort(new Error('stop')),
    });
    await expect(pending).rejects.toThrow('stop');
    expect(attempts).toBe(1);
  });

  test('the next attempt also waits for a promise onRetry returns; its rejection fails nothing', async () => {
    const events: string[] = [];
    let release!: () => void;
    let attempts = 0;
    const pending = retryModelCall({
      attempt: async () => {
        attempts += 1;
        events.push(`attempt ${attempts}`);
        if (attempts === 1) throw new Error('busy');
        return 'done';
      },
      judge: () => transient,
      giveUp: () => new Error('never'),
      maxRetries: 2,
      maxRetryAfterMs: 1_000,
      onRetry: () =>
        new Promise<void>((resolve) => {
          release = () => {
            events.push('slot again');
            resolve();
          };
        }),
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(['attempt 1']);
    release();
    await expect(pending).resolves.toBe('done');
    expect(events).toEqual(['attempt 1', 'slot again', 'attempt 2']);
    let rejectedAttempts = 0;
    await expect(
      retryModelCall({
        attempt: async () => {
          rejectedAttempts += 1;
          if (rejectedAttempts === 1) throw new Error('busy');
          return 'still done';
        },
        judge: () => transient,
        giveUp: () => new Error('never'),
        maxRetries: 1,
        maxRetryAfterMs: 1_000,
        onRetry: () => Promise.reject(new Error('ignored')),
      }),
    ).resolves.toBe('still done');
  });
});
