import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * The state letter of process `pid` from `/proc/<pid>/stat` (`R`, `S`, `Z`, ...): `'gone'` when
 * Linux has no such process, `undefined` where there is no `/proc` to ask.
 */
function procState(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' && process.platform === 'linux' ? 'gone' : undefined;
  }
  // `pid (comm) state ...`: the command name may hold spaces and parentheses of its own.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ', 1)[0];
}

/**
 * Whether process `pid` on host `host` may still be running: `false` only when the host is
 * this one and no live process has that pid: none at all, or a zombie (`Z`) or dead (`X`) one,
 * a process that was killed and that its parent has not reaped yet (in a container whose PID 1
 * does not reap, it stays so). A process on another host is assumed alive; callers bound it by
 * time instead.
 */
export function mayBeAlive(pid: number, host: string): boolean {
  if (host !== hostname()) return true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = procState(pid);
  return state !== 'gone' && state !== 'Z' && state !== 'X' && state !== 'x';
}
