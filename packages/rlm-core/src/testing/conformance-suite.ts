/** The assertions the suites use; vitest's `expect` (or jest's) satisfies it. */
export interface ConformanceAssertion {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toMatch(expected: RegExp | string): void;
  toContain(expected: unknown): void;
  toBeUndefined(): void;
  toBeGreaterThan(expected: number): void;
  toBeLessThan(expected: number): void;
  readonly not: ConformanceAssertion;
}

/**
 * The test runner functions a suite registers its tests with. Pass vitest's own, so that
 * `@rlm/core` needs no test runner at run time.
 */
export interface ConformanceTestApi {
  readonly test: (name: string, fn: () => Promise<void>, timeout?: number) => void;
  readonly expect: (actual: unknown) => ConformanceAssertion;
  /** When given, the suite's tests are grouped under one `describe`. */
  readonly describe?: (name: string, fn: () => void) => void;
}

/**
 * The settings every conformance suite of `@rlm/core/testing` takes, as one object: the
 * subject's name, how to make it, and the test runner. A suite adds its own options (what the
 * subject cannot do, declared rather than skipped) beside these.
 *
 * @example
 * import { describe, expect, test } from 'vitest';
 * import { runSandboxConformance } from '@rlm/core/testing';
 * runSandboxConformance({ name: 'my-sandbox', create: createMySandbox(), api: { describe, expect, test } });
 */
export interface ConformanceSuiteSettings<Create, Api = ConformanceTestApi> {
  /** Names the subject in the group's title, e.g. `ses`: "Sandbox conformance (ses)". */
  readonly name: string;
  /** Makes a fresh subject for a test; every test makes its own. */
  readonly create: Create;
  /**
   * The test runner's `test`, `expect` and (optionally) `describe`. Suites of other packages
   * may ask for more of the runner (`Api`), e.g. vitest's own types.
   */
  readonly api: Api;
}

/**
 * Registers a suite's tests: grouped under one `describe` titled `title (name)` when the
 * runner has `describe`, else directly.
 */
export function registerConformanceSuite(
  settings: ConformanceSuiteSettings<unknown, Pick<ConformanceTestApi, 'describe'>>,
  title: string,
  register: () => void,
): void {
  if (settings.api.describe) settings.api.describe(`${title} (${settings.name})`, register);
  else register();
}
