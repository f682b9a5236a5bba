import { randomBytes } from 'node:crypto';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorCode } from './error-code.js';
import { ToolStoreLockError } from './errors/tool-store-lock-error.js';

/** Timing of {@link withFileLock}. All durations are in milliseconds. */
export interface FileLockOptions {
  /**
   * A lock older than this (by its file's modification time) is taken over, whoever holds
   * it. A lock whose holder is a dead process on this host is taken over at once. Must be
   * far longer than any critical section. Default 10,000.
   */
  readonly staleMs?: number;
  /** Give up with `ToolStoreLockError` after waiting this long. Default 10,000. */
  readonly timeoutMs?: number;
  /** First retry delay; doubles per attempt up to 32 times this, with ±50% jitter. Default 4. */
  readonly retryDelayMs?: number;
}

/** Defaults of {@link FileLockOptions}. */
export const defaultFileLockOptions: Required<FileLockOptions> = {
  staleMs: 10_000,
  timeoutMs: 10_000,
  retryDelayMs: 4,
};

/** What a lock file holds. */
interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
  readonly acquired_at: string;
}

/** What was seen of a lock file when deciding it was stale. */
interface LockSnapshot {
  readonly owner: LockOwner | undefined;
  readonly mtimeMs: number;
  readonly size: number;
}

/**
 * Runs `critical` while holding an exclusive lock on `lockPath`, across processes.
 *
 * Protocol: the lock is a file created with `O_CREAT | O_EXCL` holding
 * `{ pid, host, token, acquired_at }`. A waiter retries with jittered exponential backoff
 * until `timeoutMs`, then throws `ToolStoreLockError`. A lock is stale when its file is
 * older than `staleMs` or its holder is a process on this host that no longer exists; a
 * stale lock is broken under a second, short-lived `O_EXCL` lock (`<lockPath>.break`) and
 * only if it is still the lock that was judged stale, so two waiters can never both break
 * it and both acquire it. Release deletes the lock only if it still holds this holder's
 * token. Not reentrant: a second `withFileLock` on the same path inside `critical` waits
 * for itself and times out.
 */
export async function withFileLock<T>(
  lockPath: string,
  critical: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const settings = { ...defaultFileLockOptions, ...options };
  const token = await acquire(lockPath, settings);
  try {
    return await critical();
  } finally {
    await release(lockPath, token);
  }
}

async function acquire(lockPath: string, settings: Required<FileLockOptions>): Promise<string> {
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    token: randomBytes(8).toString('hex'),
    acquired_at: new Date().toISOString(),
  };
  const deadline = Date.now() + settings.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    if (await tryCreate(lockPath, `${JSON.stringify(owner)}\n`)) return owner.token;
    const snapshot = await inspect(lockPath);
    if (snapshot === undefined) continue;
    if (isStale(snapshot, settings.staleMs)) {
      await breakLock(lockPath, snapshot, settings.staleMs);
      continue;
    }
    if (Date.now() >= deadline) throw new ToolStoreLockError(lockPath, settings.timeoutMs);
    const backoff = settings.retryDelayMs * 2 ** Math.min(attempt, 5);
    await sleep(backoff * (0.5 + Math.random()));
  }
}

/** Creates `path` exclusively with `content`; false when it already exists. */
async function tryCreate(path: string, content: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'wx');
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(content, 'utf8');
  } catch (error) {
    await handle.close();
    await unlinkIfPresent(path);
    throw error;
  }
  await handle.close();
  return true;
}

/** The lock file's owner and times, or `undefined` when it is gone. */
async function inspect(lockPath: string): Promise<LockSnapshot | undefined> {
  try {
    const info = await stat(lockPath);
    const text = await readFile(lockPath, 'utf8');
    return { owner: parseOwner(text), mtimeMs: info.mtimeMs, size: info.size };
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    return typeof value.pid === 'number' && typeof value.token === 'string'
      ? (value as LockOwner)
      : undefined;
  } catch {
    // Empty while its creator is still writing it, or damaged: judged by age alone.
    return undefined;
  }
}

function isStale(snapshot: LockSnapshot, staleMs: number): boolean {
  if (Date.now() - snapshot.mtimeMs > staleMs) return true;
  const owner = snapshot.owner;
  return owner !== undefined && owner.host === hostname() && !isProcessAlive(owner.pid);
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/** Deletes the lock if it is still the one in `seen`, under a short-lived breaker lock. */
async function breakLock(lockPath: string, seen: LockSnapshot, staleMs: number): Promise<void> {
  const breakerPath = `${lockPath}.break`;
  if (!(await tryCreate(breakerPath, `${process.pid}\n`))) {
    const breaker = await inspect(breakerPath);
    // A breaker that crashed mid-break leaves its file behind; clear it once it is old.
    if (breaker !== undefined && Date.now() - breaker.mtimeMs > staleMs) {
      await unlinkIfPresent(breakerPath);
    }
    return;
  }
  try {
    const now = await inspect(lockPath);
    const same =
      now !== undefined &&
      (seen.owner !== undefined
        ? now.owner?.token === seen.owner.token
        : now.owner === undefined && now.mtimeMs === seen.mtimeMs && now.size === seen.size);
    if (same) await unlinkIfPresent(lockPath);
  } finally {
    await unlinkIfPresent(breakerPath);
  }
}

async function release(lockPath: string, token: string): Promise<void> {
  const now = await inspect(lockPath);
  if (now?.owner?.token === token) await unlinkIfPresent(lockPath);
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}
