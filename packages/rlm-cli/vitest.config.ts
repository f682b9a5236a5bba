import { measureSlowdown } from '@rlm/core/testing';
import { defineConfig } from 'vitest/config';
import { fastAndSlowProjects } from '../../vitest.shared.js';

export default defineConfig({
  test: {
    // The slow suite also runs every test of the built bin as real processes (`src/bin/` and
    // the commands' `rlm-*.test.ts`) and the walk of a directory of 100,000 files.
    projects: fastAndSlowProjects([
      'src/bin/**/*.test.ts',
      'src/**/rlm-*.test.ts',
      'src/**/walk-context-directory.test.ts',
    ]),
    // A hang catcher for tests that start processes and sandboxes: 60 s on the reference
    // machine, scaled by the machine's slowdown when the run starts (pnpm test:stress).
    testTimeout: Math.round(60_000 * measureSlowdown()),
  },
});
