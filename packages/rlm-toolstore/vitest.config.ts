import { defineConfig } from 'vitest/config';
import { fastAndSlowProjects } from '../../vitest.shared.js';

export default defineConfig({
  test: {
    projects: fastAndSlowProjects(),
    testTimeout: 60_000,
    // The concurrency tests fork processes that import the built package.
    globalSetup: ['./vitest.global-setup.ts'],
  },
});
