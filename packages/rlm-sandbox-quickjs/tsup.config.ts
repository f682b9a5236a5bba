import { defineConfig } from 'tsup';

export default defineConfig({
  // The worker is its own entry: the host starts it by URL, relative to the built module.
  entry: ['src/index.ts', 'src/worker.ts'],
  format: ['esm'],
  dts: { entry: ['src/index.ts'] },
  clean: true,
  sourcemap: true,
  target: 'node20',
});
