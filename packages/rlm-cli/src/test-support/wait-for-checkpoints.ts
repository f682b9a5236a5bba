import { existsSync } from 'node:fs';
import sqlite3 from 'sqlite3';

/** Checkpoints committed in a SQLite store file, read by a connection of its own. */
export async function checkpointCount(file: string): Promise<number> {
  if (!existsSync(file)) return 0;
  return new Promise((resolve) => {
    const database = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (openError) => {
      if (openError) {
        resolve(0);
        return;
      }
      database.get(
        "SELECT COUNT(*) AS count FROM rlm_index WHERE key LIKE 'rlm:checkpoint:%'",
        (queryError: Error | null, row: { count: number } | undefined) => {
          database.close(() => resolve(queryError || !row ? 0 : row.count));
        },
      );
    });
  });
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
