import { defineConfig } from 'vitest/config';
import { fastAndSlowProjects } from '../../vitest.shared.js';
import { bundleReportPage, reportPageModuleId } from './scripts/bundle-report-page.js';

const resolvedId = `\0${reportPageModuleId}`;

export default defineConfig({
  plugins: [
    {
      name: 'report-page',
      resolveId: (id) => (id === reportPageModuleId ? resolvedId : undefined),
      load: async (id) =>
        id === resolvedId
          ? `export default ${JSON.stringify(await bundleReportPage())};`
          : undefined,
    },
  ],
  test: {
    projects: fastAndSlowProjects(),
    testTimeout: 60_000,
  },
});
