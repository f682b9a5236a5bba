import { hostname } from 'node:os';
import type { ArtifactStore } from '@rlm/core';
import type { ConformanceSuiteSettings } from '@rlm/core/testing';
import type { ExpectStatic, TestAPI } from 'vitest';

/**
 * Settings of {@link runRunLeaseConformance}, in the shape of every conformance suite (`{ name, create, api }`):
 * `create` must return a new, empty store each call; `api` is vitest's `{ test, expect }`.
 */
export type RunLeaseConformanceOptions = ConformanceSuiteSettings<
  () => ArtifactStore | Promise<ArtifactStore>,
  { readonly test: TestAPI; readonly expect: ExpectStatic }
>;
import { acquireRunLease, type RunLease } from '../acquire-run-lease.js';
import { RunLeaseHeldError } from '../errors/run-lease-held-error.js';

/**
 * The run lease contract (`acquireRunLease`) on a store made by `@rlm/artifacts`, as vitest
 * tests: one holder per run, refusals naming the holder, release, stale leases taken over, and
 * the loser of a takeover told. `create` must return a new, empty store each call.
 */
export function runRunLeaseConformance(options: RunLeaseConformanceOptions): void {
  const { name: subject, create, api } = options;
  const { test, expect } = api;
  const withStore = (name: string, body: (store: ArtifactStore) => Promise<void>) =>
    test(`run lease conformance (${subject}): ${name}`, { timeout: 30_000 }, async () => {
      const store = await create();
      try {
        await body(store);
      } finally {
        await store.close();
      }
    });

  withStore(
    'a second holder is refused, naming the pid; after release it gets the lease',
    async (store) => {
      const first = await acquireRunLease(store, 'run-a');
      expect(first).toMatchObject({
        runKey: 'run-a',
        held: true,
        tookOverFrom: undefined,
        holder: { pid: process.pid, hostname: hostname() },
      });
      const refused = await acquireRunLease(store, 'run-a').catch((error: unknown) => error);
      expect(refused).toMatchObject({
        name: 'RunLeaseHeldError',
        runKey: 'run-a',
        holder: { pid: process.pid, hostname: hostname() },
      });
      expect((refused as Error).message).toContain(`process ${process.pid}`);
      // Scoped views are the same storage, so the same lease.
      await expect(acquireRunLease(store.scoped('other'), 'run-a')).rejects.toMatchObject({
        name: 'RunLeaseHeldError',
      });
      // Another run is independent.
      const other = await acquireRunLease(store, 'run-b');
      await first.release();
      await first.release();
      expect(first.held).toBe(false);
      const second = await acquireRunLease(store, 'run-a');
      expect(second.held).toBe(true);
      await second.release();
      await other.release();
    },
  );

  withStore('concurrent acquisitions in one process: exactly one wins', async (store) => {
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, () => acquireRunLease(store, 'run-race')),
    );
    const won = attempts.filter((attempt) => attempt.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const attempt of attempts) {
      if (attempt.status === 'rejected') {
        expect(attempt.reason).toMatchObject({ name: 'RunLeaseHeldError' });
      }
    }
    await (won[0] as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
  });

  withStore('heartbeats keep a lease live past staleAfterMs', async (store) => {
    await using first = await acquireRunLease(store, 'run-live', { heartbeatIntervalMs: 50 });
    const { acquiredAt } = first.holder;
    // Wait (however long the machine takes) until a heartbeat lands a second after acquisition.
    let heartbeatAt = acquiredAt;
    while (heartbeatAt - acquiredAt < 1000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const refused = await acquireRunLease(store, 'run-live').catch((error: unknown) => error);
      heartbeatAt = (refused as RunLeaseHeldError).holder.heartbeatAt;
    }
    // Stale for the lease as first written, live for its renewed heartbeat.
    const staleAfterMs = Date.now() - acquiredAt - 100;
    await expect(acquireRunLease(store, 'run-live', { staleAfterMs })).rejects.toMatchObject({
      name: 'RunLeaseHeldError',
    });
    expect(first.held).toBe(true);
  });

  withStore(
    'a stale lease is taken over, and its old holder learns it lost the lease',
    async (store) => {
      let lost: (error: RunLeaseHeldError) => void = () => {};
      const lostError = new Promise<RunLeaseHeldError>((resolve) => {
        lost = resolve;
      });
      const first = await acquireRunLease(store, 'run-stale', {
        heartbeatIntervalMs: 3_600_000,
        onLost: lost,
      });
      await new Promise((resolve) => setTimeout(resolve, 30));
      const second = await acquireRunLease(store, 'run-stale', { staleAfterMs: 10 });
      expect(second.tookOverFrom).toEqual(first.holder);
      // The old holder's release leaves the new holder's row alone.
      await first.release();
      await expect(acquireRunLease(store, 'run-stale')).rejects.toMatchObject({
        name: 'RunLeaseHeldError',
      });
      await second.release();

      const third = await acquireRunLease(store, 'run-stale', {
        heartbeatIntervalMs: 20,
        onLost: lost,
      });
      await new Promise((resolve) => setTimeout(resolve, 30));
      // A heartbeat of the same millisecond is not stale even at staleAfterMs: 0; on a loaded
      // machine the heartbeat timer and this one fire in the same turn: try again until one
      // lands between them.
      let fourth: RunLease | undefined;
      while (fourth === undefined) {
        fourth = await acquireRunLease(store, 'run-stale', {
          staleAfterMs: 0,
          heartbeatIntervalMs: 3_600_000,
        }).catch((error: unknown) => {
          if (RunLeaseHeldError.isInstance(error)) return undefined;
          throw error;
        });
        if (fourth === undefined) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const error = await lostError;
      expect(error).toMatchObject({ name: 'RunLeaseHeldError', holder: fourth.holder });
      expect(third.held).toBe(false);
      await third.release();
      await fourth.release();
    },
  );
}
