import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { timeScaled } from '@rlm/core/testing';
import { ToolStoreLockError } from './errors/tool-store-lock-error.js';
import { pathExists } from './optional-files.js';
import { withFileLock } from './with-file-lock.js';

let directory: string;
let lockPath: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'rlm-toolstore-'));
  lockPath = path.join(directory, 'registry.json.lock');
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

function lockContent(pid: number, token = 'someone-else'): string {
  return JSON.stringify({ pid, host: hostname(), token, acquired_at: new Date().toISOString() });
}

describe('withFileLock', () => {
  test('runs critical sections one at a time and removes the lock after', async () => {
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        withFileLock(lockPath, async () => {
          inside++;
          most = Math.max(most, inside);
          await sleep(2);
          order.push(index);
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(order).toHaveLength(8);
    expect(await pathExists(lockPath)).toBe(false);
  });

  test('returns the result and releases the lock when the section throws', async () => {
    expect(await withFileLock(lockPath, async () => 42)).toBe(42);
    await expect(
      withFileLock(lockPath, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await pathExists(lockPath)).toBe(false);
  });

  test('takes over at once a lock whose holder process is dead', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    await writeFile(lockPath, lockContent(dead));
    const { value, scaledMs } = await timeScaled(() =>
      withFileLock(lockPath, async () => 'mine', { timeoutMs: 5_000 }),
    );
    expect(value).toBe('mine');
    expect(scaledMs).toBeLessThan(1_000);
  });

  test('takes over a lock older than staleMs even when its holder lives', async () => {
    await writeFile(lockPath, lockContent(process.pid));
    const old = new Date(Date.now() - 60_000);
    await utimes(lockPath, old, old);
    expect(await withFileLock(lockPath, async () => 'mine', { staleMs: 10_000 })).toBe('mine');
  });

  test('takes over an empty lock file once it is stale', async () => {
    await writeFile(lockPath, '');
    const old = new Date(Date.now() - 60_000);
    await utimes(lockPath, old, old);
    expect(await withFileLock(lockPath, async () => 'mine')).toBe('mine');
  });

  test('gives up with ToolStoreLockError while a live process holds a fresh lock', async () => {
    await writeFile(lockPath, lockContent(process.pid));
    const error = await withFileLock(lockPath, async () => 'never', { timeoutMs: 100 }).catch(
      (caught: unknown) => caught,
    );
    expect(ToolStoreLockError.isInstance(error)).toBe(true);
    expect((error as ToolStoreLockError).lockPath).toBe(lockPath);
    expect((error as Error).message).toMatch(/could not lock .* within 100 ms/);
    expect(await readFile(lockPath, 'utf8')).toContain('someone-else');
  });

  test('does not delete a lock that was taken over by someone else', async () => {
    await withFileLock(lockPath, async () => {
      await writeFile(lockPath, lockContent(process.pid, 'new-holder'));
    });
    expect(await readFile(lockPath, 'utf8')).toContain('new-holder');
  });
});
