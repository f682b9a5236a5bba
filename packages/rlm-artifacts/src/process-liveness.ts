import { hostname } from 'node:os';

/**
 * Whether process `pid` on host `host` may still be running: `false` only when the host is
 * this one and no process has that pid. A process on another host is assumed alive; callers
 * bound it by time instead.
 */
export function mayBeAlive(pid: number, host: string): boolean {
  if (host !== hostname()) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
