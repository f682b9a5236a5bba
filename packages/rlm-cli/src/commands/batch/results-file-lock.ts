import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { UsageError } from '../../usage-error.js';

/** Who holds a results file, as its lock file says. */
interface LockHolder {
  readonly pid: number;
  readonly hostname: string;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  /** Tells this holder from a later one with the same pid. */
  readonly token: string;
}

/**
 * One writer per results file: `<file>.lock` beside it, created whole (written aside, then
 * hard-linked into place, which fails when it exists) with the holder's pid, host and start. A
 * lock whose process is gone (a dead pid on this host) is taken over; any other is refused.
 */
export class ResultsFileLock {
  readonly #path: string;
  readonly #token: string;
  /** The process whose lock was taken over, when it was. */
  readonly tookOverFrom: LockHolder | undefined;

  private constructor(path: string, token: string, tookOverFrom: LockHolder | undefined) {
    this.#path = path;
    this.#token = token;
    this.tookOverFrom = tookOverFrom;
  }

  /**
   * Takes the lock of `file` (`--out`). Throws a {@link UsageError} naming the holder when
   * another live process has it, or when the lock cannot be created.
   */
  static acquire(file: string): ResultsFileLock {
    const path = `${file}.lock`;
    const holder: LockHolder = {
      pid: process.pid,
      hostname: hostname(),
      startedAt: Date.now(),
      token: randomBytes(8).toString('hex'),
    };
    const aside = `${path}.${holder.token}`;
    let tookOverFrom: LockHolder | undefined;
    try {
      writeFileSync(aside, `${JSON.stringify(holder)}\n`);
      for (let attempt = 0; ; attempt++) {
        try {
          linkSync(aside, path);
          return new ResultsFileLock(path, holder.token, tookOverFrom);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        const current = readHolder(path);
        // Taken over once already: whoever holds it now took it meanwhile.
        if (current !== undefined && (mayBeAlive(current) || attempt > 0)) {
          throw new UsageError(
            `--out ${file} is being written by another rlm batch (process ${current.pid} on ${current.hostname}, since ${new Date(current.startedAt).toISOString()}): wait for it to end or stop it (kill ${current.pid}), or pass another --out; if that process is gone, delete ${path}`,
          );
        }
        // Its writer is gone: take the lock over.
        tookOverFrom = current;
        unlinkSync(path);
      }
    } catch (error) {
      if (UsageError.isInstance(error)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new UsageError(`cannot lock --out ${file} (${path}): ${reason}`, { cause: error });
    } finally {
      try {
        unlinkSync(aside);
      } catch {}
    }
  }

  /** Removes the lock, if it is still this one's. Never throws. */
  release(): void {
    try {
      if (readHolder(this.#path)?.token === this.#token) unlinkSync(this.#path);
    } catch {}
  }
}

/** The holder a lock file names; `undefined` for one that is unreadable or malformed. */
function readHolder(path: string): LockHolder | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    return typeof value.pid === 'number' &&
      typeof value.hostname === 'string' &&
      typeof value.startedAt === 'number' &&
      typeof value.token === 'string'
      ? (value as LockHolder)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `false` only for a process of this host that no longer runs. */
function mayBeAlive(holder: LockHolder): boolean {
  if (holder.hostname !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
