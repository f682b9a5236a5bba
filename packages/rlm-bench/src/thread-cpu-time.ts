import { readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc`'s CPU times (`getconf CLK_TCK`: 100 on Linux). */
const ticksPerSecond = 100;

/**
 * CPU time (user + system) the main thread of process `pid` has used so far, in milliseconds,
 * from `/proc/<pid>/task/<pid>/stat` (Linux; `undefined` elsewhere or once the process is
 * gone). Its resolution is a clock tick, 10 ms. Unlike `process.cpuUsage()`, it leaves out the
 * process's other threads (a sandbox's worker, SQLite's, the garbage collector's helpers): it is
 * the work of the thread that runs the host's event loop.
 */
export function mainThreadCpuMs(pid: number = process.pid): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / ticksPerSecond : undefined;
}
