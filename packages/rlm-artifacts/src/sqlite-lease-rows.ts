import { decodeLeaseEntry, type LeaseEntry, leaseKey } from './lease-entry.js';
import type { LeaseRows } from './lease-rows.js';

/** Runs one SQL statement with parameters and resolves its rows (`@keyv/sqlite`'s `query`). */
export type SqlQuery = (sql: string, ...parameters: unknown[]) => Promise<unknown[]>;

/**
 * Lease rows in the SQLite index table, each change one conditional SQL statement, so two
 * processes can never both take a lease. Rows are stored as Keyv entries (`{ value, expires }`)
 * under the Keyv namespace, like every other index entry.
 */
export class SqliteLeaseRows implements LeaseRows {
  readonly #query: SqlQuery;
  readonly #table: string;
  readonly #namespace: string;

  constructor(options: { query: SqlQuery; table: string; namespace: string }) {
    this.#query = options.query;
    this.#table = options.table;
    this.#namespace = options.namespace;
  }

  async read(runKey: string): Promise<LeaseEntry | undefined> {
    const rows = (await this.#query(
      `SELECT value FROM ${this.#table} WHERE key = ?`,
      this.#key(runKey),
    )) as { value: string }[];
    const row = rows[0];
    return row === undefined ? undefined : decodeLeaseEntry(JSON.parse(row.value).value);
  }

  async swap(
    runKey: string,
    expected: LeaseEntry | undefined,
    next: LeaseEntry | undefined,
  ): Promise<boolean> {
    const key = this.#key(runKey);
    const value = next === undefined ? undefined : JSON.stringify({ value: next, expires: null });
    const matches = `key = ? AND json_extract(value, '$.value.token') = ? AND json_extract(value, '$.value.heartbeatAt') = ?`;
    let rows: unknown[];
    if (expected === undefined) {
      if (value === undefined) return true;
      rows = await this.#query(
        `INSERT INTO ${this.#table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING RETURNING key`,
        key,
        value,
      );
    } else if (value === undefined) {
      rows = await this.#query(
        `DELETE FROM ${this.#table} WHERE ${matches} RETURNING key`,
        key,
        expected.token,
        expected.heartbeatAt,
      );
    } else {
      rows = await this.#query(
        `UPDATE ${this.#table} SET value = ? WHERE ${matches} RETURNING key`,
        value,
        key,
        expected.token,
        expected.heartbeatAt,
      );
    }
    return rows.length === 1;
  }

  #key(runKey: string): string {
    return `${this.#namespace}:${leaseKey(runKey)}`;
  }
}
