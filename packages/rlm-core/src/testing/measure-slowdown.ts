import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Milliseconds {@link calibrationWork} takes on the reference machine: the project's 2-core
 * machine (Node 20), whose fastest of 300 runs took 2.1 ms.
 */
const referenceCalibrationMs = 2.5;

/** Runs of the work one measurement times: about 20 ms on the reference machine. */
const runsPerMeasurement = 8;

let warm = false;

/**
 * A fixed piece of CPU work of the kinds tests wait on (allocating objects, JSON, sorting,
 * strings): its duration is the calibration. Returns a number so that nothing is optimised away.
 */
function calibrationWork(): number {
  const rows = Array.from({ length: 2_000 }, (_, index) => ({
    index,
    key: `row-${(index * 7_919) % 2_000}`,
    values: [index, index * 2, index * 3],
  }));
  const copy = JSON.parse(JSON.stringify(rows)) as typeof rows;
  copy.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  let text = '';
  for (const row of copy) text += row.key.slice(4);
  return text.length + copy[0]!.index;
}

/**
 * How many times slower than the reference machine this machine runs plain JavaScript right
 * now, at least 1: a fixed piece of CPU work is timed on the wall clock against
 * {@link referenceCalibrationMs}. It counts both a slower CPU and the cores other processes take
 * (a machine whose cores are busy gives this thread a share of one). It takes about 20 ms on an
 * idle reference machine, proportionally longer on a loaded one.
 *
 * @example
 * // A bound that holds on a loaded laptop and still fails a sandbox that never stops the loop.
 * expect(elapsedMs).toBeLessThan((timeoutMs + 1_000) * measureSlowdown());
 */
export function measureSlowdown(): number {
  if (!warm) {
    // The first runs compile the work: they would count the compiler, not the machine.
    for (let run = 0; run < 3; run++) calibrationWork();
    warm = true;
  }
  const started = performance.now();
  let sink = 0;
  for (let run = 0; run < runsPerMeasurement; run++) sink += calibrationWork();
  const elapsedMs = performance.now() - started;
  if (sink < 0) throw new Error('unreachable');
  return Math.max(1, elapsedMs / (runsPerMeasurement * referenceCalibrationMs));
}

/** What {@link timeScaled} measured. */
export interface ScaledTiming<T> {
  /** What `run` resolved. */
  readonly value: T;
  /** Wall time `run` took, in milliseconds. */
  readonly wallMs: number;
  /** The larger {@link measureSlowdown} of just before and just after `run`. */
  readonly slowdown: number;
  /**
   * `wallMs / slowdown`: about the time `run` would have taken on the reference machine, for
   * bounds stated in the reference machine's milliseconds. An upper bound on `scaledMs` is an
   * upper bound on `wallMs` that grows with the machine's load.
   */
  readonly scaledMs: number;
}

/**
 * Runs `run` and times it on the wall clock, scaled by how slow the machine was around it
 * (measured just before and just after; the larger counts). A test bounds `scaledMs`, never
 * `wallMs`, so that it holds on a loaded or slow machine and still fails what is slow by
 * itself: a timeout not enforced, a loop not stopped.
 *
 * @example
 * const { value: result, scaledMs } = await timeScaled(() => sandbox.execute('while (true) {}'));
 * expect(result.error).toMatch(/timed out/);
 * expect(scaledMs).toBeLessThan(timeoutMs + 1_000);
 */
export async function timeScaled<T>(run: () => Promise<T>): Promise<ScaledTiming<T>> {
  const before = measureSlowdown();
  const started = performance.now();
  const value = await run();
  const wallMs = performance.now() - started;
  const slowdown = Math.max(before, measureSlowdown());
  return { value, wallMs, slowdown, scaledMs: wallMs / slowdown };
}

/**
 * Waits `ms` of the reference machine's milliseconds: at least `ms` times the machine's
 * slowdown on the wall clock, measured when the wait starts and again each time it would end.
 * For deadlines that only catch a hang (`settled within ...`, `polled until ...`). Rejects with
 * the signal's reason when `signal` aborts.
 */
export async function sleepScaled(ms: number, signal?: AbortSignal): Promise<void> {
  const started = performance.now();
  let slowdown = measureSlowdown();
  for (;;) {
    const remainingMs = ms * slowdown - (performance.now() - started);
    if (remainingMs <= 0) return;
    await sleep(remainingMs, undefined, { signal }).catch((error: unknown) => {
      throw signal?.aborted ? signal.reason : error;
    });
    slowdown = Math.max(slowdown, measureSlowdown());
  }
}

/**
 * Milliseconds of CPU time (user and system, every thread of the process) spent since
 * `before`, a `process.cpuUsage()`. For bounds on synchronous work: other processes on the
 * machine do not stretch it, as they stretch the wall clock.
 *
 * @example
 * const before = process.cpuUsage();
 * describeContext({ value: sharedMillionTimes });
 * expect(cpuMsSince(before)).toBeLessThan(5_000);
 */
export function cpuMsSince(before: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000;
}
