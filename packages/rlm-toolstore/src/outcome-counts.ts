/**
 * Call counts kept for a tool (in the registry) and for each method (in its file). Every
 * failure counts once in `failure_count` and once in the count of its class.
 */
export interface OutcomeCounts {
  readonly success_count: number;
  readonly failure_count: number;
  readonly intrinsic_failure_count: number;
  readonly adaptive_failure_count: number;
  readonly extrinsic_failure_count: number;
}

/** All counts zero. */
export const zeroOutcomeCounts: OutcomeCounts = {
  success_count: 0,
  failure_count: 0,
  intrinsic_failure_count: 0,
  adaptive_failure_count: 0,
  extrinsic_failure_count: 0,
};

/**
 * The share of calls that succeeded, ignoring extrinsic failures (an outage says nothing
 * about the code), with Laplace smoothing: `(successes + 1) / (successes + failures + 2)`, so
 * a tool never called scores 0.5 rather than 0 or 1.
 */
export function successRate(counts: OutcomeCounts): number {
  const failures = counts.intrinsic_failure_count + counts.adaptive_failure_count;
  return (counts.success_count + 1) / (counts.success_count + failures + 2);
}
