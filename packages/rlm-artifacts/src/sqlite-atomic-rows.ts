import type { AtomicRowWriter } from './keyv-entries.js';
import type { SqlQuery } from './sqlite-lease-rows.js';

/**
 * Writes rows of `table` (keys with the Keyv namespace, values serialised as Keyv does) in one
 * SQL statement, so SQLite commits all of them or none.
 */
export function sqliteAtomicRows(query: SqlQuery, table: string): AtomicRowWriter {
  return async (rows) => {
    if (rows.length === 0) return;
    await query(
      `INSERT INTO ${table} (key, value) VALUES ${rows.map(() => '(?, ?)').join(', ')} ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
      ...rows.flatMap((row) => [row.key, row.value]),
    );
  };
}
