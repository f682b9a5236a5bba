import type { Redis } from 'ioredis';
import type { ArtifactRecordInput, ArtifactStore } from '@rlm/core';
import { BatchArtifactQuotaError } from './batch-artifact-quota-error.js';

/** A counter of the bytes a batch's jobs stored: in this process, or shared in Redis. */
export interface BatchArtifactCounter {
  /** Adds `bytes` (negative to give back); resolves to the new total. */
  add(bytes: number): Promise<number>;
}

/** The counter of a batch whose jobs all run in this process. */
export function memoryArtifactCounter(): BatchArtifactCounter {
  let total = 0;
  return {
    add: async (bytes) => {
      total += bytes;
      return total;
    },
  };
}

/**
 * The bytes the jobs of one batch may store with `store()` (named records) together
 * (`--max-batch-artifact-bytes`), on top of each run's own quota: a view of `store` whose `put`
 * (through any scoped view) first adds the value's JSON bytes to `counter` and rejects with
 * {@link BatchArtifactQuotaError} (giving them back) when the batch would pass `limitBytes`. A
 * put that fails gives its bytes back too; one that finds the same record stored counts anyway.
 */
export function limitBatchArtifacts(
  store: ArtifactStore,
  counter: BatchArtifactCounter,
  limitBytes: number,
): ArtifactStore {
  return new Proxy(store, {
    get: (target, property) => {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      if (property === 'scoped') {
        return (scope: string) => limitBatchArtifacts(target.scoped(scope), counter, limitBytes);
      }
      if (property !== 'put') return value.bind(target);
      return async (name: string, record: ArtifactRecordInput) => {
        const bytes = jsonBytes(record?.value);
        const total = await counter.add(bytes);
        if (total > limitBytes) {
          await counter.add(-bytes);
          throw new BatchArtifactQuotaError(
            `store(name, value): storing ${bytes.toLocaleString('en-US')} more bytes would pass the batch's quota of ${limitBytes.toLocaleString('en-US')} bytes for all its jobs (${(total - bytes).toLocaleString('en-US')} used; CLI --max-batch-artifact-bytes); load or reuse what is stored`,
          );
        }
        try {
          return await target.put(name, record);
        } catch (error) {
          await counter.add(-bytes).catch(() => {});
          throw error;
        }
      };
    },
  });
}

/** UTF-8 bytes of a value's JSON; a value that has none counts 0 (the store refuses it). */
function jsonBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8') + 2;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
  } catch {
    return 0;
  }
}

/**
 * The counter of a batch whose jobs run on workers anywhere: a Redis key (on the queue's
 * server) that every worker adds to atomically; it expires `ttlMs` after its last change, with
 * the artifacts it counts.
 */
export function redisArtifactCounter(
  client: Pick<Redis, 'multi'>,
  key: string,
  ttlMs: number,
): BatchArtifactCounter {
  return {
    add: async (bytes) => {
      const replies = await client.multi().incrby(key, bytes).pexpire(key, ttlMs).exec();
      const [error, total] = replies?.[0] ?? [new Error('the transaction was discarded'), 0];
      if (error) {
        throw new Error(
          `counting the batch's artifact bytes in the queue failed: ${error.message}`,
          {
            cause: error,
          },
        );
      }
      return Number(total);
    },
  };
}
