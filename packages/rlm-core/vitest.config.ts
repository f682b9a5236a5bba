import { defineConfig } from 'vitest/config';
import { fastAndSlowProjects } from '../../vitest.shared.js';

export default defineConfig({
  test: { projects: fastAndSlowProjects(), testTimeout: 60_000 },
});
