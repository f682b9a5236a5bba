import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const packageRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Where tests keep files for child processes (the bundle, their scripts). */
export const childCacheDirectory = join(
  packageRoot,
  'node_modules',
  '.cache',
  'rlm-artifacts-test',
);

/**
 * Bundles this package's source for a child process (dependencies stay imports) and resolves
 * the bundle's file URL, for `await import(url)` in the child.
 */
export async function bundlePackage(): Promise<string> {
  const outfile = join(childCacheDirectory, 'index.mjs');
  await build({
    entryPoints: [join(packageRoot, 'src', 'index.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  return pathToFileURL(outfile).href;
}
