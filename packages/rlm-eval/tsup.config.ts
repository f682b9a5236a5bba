import { defineConfig } from 'tsup';
import { bundleReportPage, reportPageModuleId } from './scripts/bundle-report-page.js';

export default defineConfig({
  // The scorer worker is its own entry: the host starts it by URL, relative to the built module.
  entry: { index: 'src/index.ts', 'scorer-worker': 'src/scorers/scorer-worker.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  sourcemap: true,
  target: 'node20',
  esbuildPlugins: [
    {
      name: 'report-page',
      setup(build) {
        build.onResolve({ filter: /^virtual:report-page$/ }, () => ({
          path: reportPageModuleId,
          namespace: 'report-page',
        }));
        build.onLoad({ filter: /.*/, namespace: 'report-page' }, async () => ({
          contents: `export default ${JSON.stringify(await bundleReportPage())};`,
          loader: 'js',
        }));
      },
    },
  ],
});
