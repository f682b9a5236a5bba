import { measureSlowdown } from '@rlm/core/testing';
import { defineConfig } from 'vitest/config';
import { fastAndSlowProjects } from '../../vitest.shared.js';

export default defineConfig({
  test: {
    projects: fastAndSlowProjects(['src/trace-viewer*.test.ts', 'src/eval-report.test.ts']),
    // A hang catcher for tests that start processes and sandboxes: 60 s on the reference
    // machine, scaled by the machine's slowdown when the run starts (pnpm test:stress).
    testTimeout: Math.round(60_000 * measureSlowdown()),
  },
});
