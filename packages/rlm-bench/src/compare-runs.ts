import { median } from './median.js';
import { timeAsync } from './time-async.js';

/** Medians, in milliseconds, of a subject and its baseline timed in the same run. */
export interface ComparedRuns {
  readonly subject: number;
  readonly baseline: number;
  /** `subject / baseline`. */
  readonly ratio: number;
}

/**
 * Times `subject` and `baseline` `runs` times each, alternating (so drift on a shared machine
 * hits both alike), after one untimed warm-up of each. Returns the medians.
 */
export async function compareRuns(
  runs: number,
  subject: () => unknown,
  baseline: () => unknown,
): Promise<ComparedRuns> {
  await subject();
  await baseline();
  const subjectTimes: number[] = [];
  const baselineTimes: number[] = [];
  for (let run = 0; run < runs; run++) {
    subjectTimes.push(await timeAsync(subject));
    baselineTimes.push(await timeAsync(baseline));
  }
  const result = { subject: median(subjectTimes), baseline: median(baselineTimes) };
  return { ...result, ratio: result.subject / result.baseline };
}
