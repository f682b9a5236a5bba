import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Checkpoints committed in a SQLite store file, read by a connection of its own (`sqlite3`). */
export async function checkpointCount(file: string): Promise<number> {
  if (!existsSync(file)) return 0;
  const { stdout } = await run('sqlite3', [
    file,
    "SELECT COUNT(*) FROM rlm_index WHERE key LIKE 'rlm:checkpoint:%'",
  ]).catch(() => ({ stdout: '0' }));
  return Number(stdout.trim());
}

/**
 * Resolves once the store file holds `count` checkpoints. A checkpoint is written while the
 * next step's model call runs, so a test that kills a run mid-step waits for it first.
 */
export async function waitForCheckpoints(file: string, count: number): Promise<void> {
  while ((await checkpointCount(file)) < count) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
