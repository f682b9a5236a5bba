import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    // The concurrency tests fork processes that import the built package.
    globalSetup: ['./vitest.global-setup.ts'],
  },
});
