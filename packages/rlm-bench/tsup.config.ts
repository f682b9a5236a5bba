import { defineConfig } from 'tsup';

export default defineConfig({
  // The workers and the cold-start probe are started by URL, beside the built entry.
  entry: ['src/bench.ts', 'src/plain-node-worker.ts', 'src/cold-start-probe.ts'],
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  // Measured as users get it: from its own package, not bundled.
  external: ['quickjs-emscripten'],
});
