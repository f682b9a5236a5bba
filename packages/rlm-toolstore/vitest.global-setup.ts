import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDirectory = path.dirname(fileURLToPath(import.meta.url));

/**
 * Child-process tests import `@rlm/toolstore` itself, which resolves to `dist/`. Rebuild it
 * when any source file is newer, so `vitest` alone never tests stale code.
 */
export default function buildIfStale(): void {
  const built = path.join(packageDirectory, 'dist', 'index.js');
  const builtAt = statOrZero(built);
  const sources = readdirSync(path.join(packageDirectory, 'src'), { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
  const newest = Math.max(
    ...sources.map((file) => statOrZero(path.join(packageDirectory, 'src', file))),
  );
  if (newest <= builtAt) return;
  const tsup = createRequire(import.meta.url).resolve('tsup/dist/cli-default.js');
  execFileSync(process.execPath, [tsup], { cwd: packageDirectory, stdio: 'ignore' });
}

function statOrZero(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
