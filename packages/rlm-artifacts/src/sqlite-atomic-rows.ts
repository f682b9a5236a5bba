import type { AtomicRowWriter } from './keyv-entries.js';
import type { SqlQuery } from './sqlite-lease-rows.js';

/**
 * Writes rows of `table` (keys with the Keyv namespace, values serialised as Keyv does) in one
 * SQL statement, so SQLite commits all of them or none; with a condition, the same statement
 * checks it first (the `id` in the Keyv entry at that key).
 */
export function sqliteAtomicRows(query: SqlQuery, table: string): AtomicRowWriter {
  return async (rows, condition) => {
    if (rows.length === 0) return true;
    const values = rows.flatMap((row) => [row.key, row.value]);
    const upsert = 'ON CONFLICT(key) DO UPDATE SET value = excluded.value RETURNING key';
    const written = condition
      ? await query(
          `INSERT INTO ${table} (key, value) SELECT column1, column2 FROM (VALUES ${rows.map(() => '(?, ?)').join(', ')}) WHERE (SELECT json_extract(value, '$.value.id') FROM ${table} WHERE key = ?) IS ? ${upsert}`,
          ...values,
          condition.key,
          condition.id ?? null,
        )
      : await query(
          `INSERT INTO ${table} (key, value) VALUES ${rows.map(() => '(?, ?)').join(', ')} ${upsert}`,
          ...values,
        );
    return written.length > 0;
  };
}
