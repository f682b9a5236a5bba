import { configDefaults, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * Test files of the slow suite in every package: sandbox security and escape attempts, fault
 * injection, hostile arguments and abuse, and anything that drives a real browser. Patterns on
 * file names, so a file keeps its suite wherever it moves.
 */
export const slowTestFiles: readonly string[] = [
  'src/**/*security*.test.ts',
  'src/**/*-fault*.test.ts',
  'src/**/*abuse*.test.ts',
  'src/**/*hostile*.test.ts',
  'src/**/*browser*.test.ts',
  'src/**/*chromium*.test.ts',
];

/**
 * A package's two vitest projects over its `*.test.ts` files under `src`: `fast` (what `pnpm test` runs:
 * `vitest run --project fast`) and `slow` (what `pnpm test:slow` runs: `vitest run --project
 * slow`), split by {@link slowTestFiles} and the package's own `slow` patterns. Both inherit the
 * package's config (`extends: true`), which must not set `include`; plain `vitest run` runs both.
 */
export function fastAndSlowProjects(
  slow: readonly string[] = [],
): TestProjectInlineConfiguration[] {
  const slowFiles = [...slowTestFiles, ...slow];
  return [
    {
      extends: true,
      test: {
        name: 'fast',
        include: ['src/**/*.test.ts'],
        exclude: [...configDefaults.exclude, ...slowFiles],
      },
    },
    { extends: true, test: { name: 'slow', include: slowFiles } },
  ];
}
