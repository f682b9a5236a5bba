import { defineConfig } from 'tsup';

export default defineConfig({
  // The scorer worker is its own entry: the host starts it by URL, relative to the built module.
  entry: { index: 'src/index.ts', 'scorer-worker': 'src/scorers/scorer-worker.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  sourcemap: true,
  target: 'node20',
});
