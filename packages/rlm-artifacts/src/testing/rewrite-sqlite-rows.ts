import type sqlite3 from 'sqlite3';

/**
 * Rewrites rows of a closed SQLite artifact store file the way a tamperer would, through the
 * SQLite driver (`sqlite3`, loaded when called): in the value of every `rlm_index` row whose
 * key matches `keyPattern` (SQL `LIKE`, e.g. `rlm:checkpoint:%`), replaces the text `from` with
 * `to`. Resolves how many rows changed. For tests of what a store does with rows that lie.
 */
export async function rewriteSqliteRows(
  path: string,
  keyPattern: string,
  from: string,
  to: string,
): Promise<number> {
  const { default: driver } = (await import('sqlite3')) as { default: typeof sqlite3 };
  return new Promise((resolve, reject) => {
    const database = new driver.Database(path, (opened) => {
      if (opened) {
        reject(opened);
        return;
      }
      database.run(
        'UPDATE rlm_index SET value = replace(value, ?, ?) WHERE key LIKE ? AND instr(value, ?) > 0',
        [from, to, keyPattern, from],
        function (this: sqlite3.RunResult, failed: Error | null) {
          const changes = this?.changes ?? 0;
          database.close((closed) => {
            if (failed ?? closed) reject(failed ?? closed);
            else resolve(changes);
          });
        },
      );
    });
  });
}
