import { measureSlowdown } from '@rlm/core/testing';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // A hang catcher for tests that start processes and sandboxes: 60 s on the reference
    // machine, scaled by the machine's slowdown when the run starts (pnpm test:stress).
    testTimeout: Math.round(60_000 * measureSlowdown()),
  },
});
