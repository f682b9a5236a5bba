import type { BinaryChunks } from './binary-chunks.js';
import { ArtifactStoreError } from './errors/artifact-store-error.js';
import type { SqlQuery } from './sqlite-lease-rows.js';

/**
 * `BinaryChunks` in the SQLite content table, as BLOB values in the rows Keyv uses (the
 * same keys, under the Keyv namespace), so listing, sizing and deleting them work as for any
 * other chunk.
 */
export class SqliteBinaryChunks implements BinaryChunks {
  readonly #query: SqlQuery;
  readonly #table: string;
  readonly #namespace: string;

  constructor(options: { query: SqlQuery; table: string; namespace: string }) {
    this.#query = options.query;
    this.#table = options.table;
    this.#namespace = options.namespace;
  }

  async write(key: string, bytes: Uint8Array): Promise<void> {
    const stored = this.#key(key);
    try {
      await this.#query(
        `INSERT INTO ${this.#table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
        stored,
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      );
    } catch (error) {
      throw new ArtifactStoreError(
        `@rlm/artifacts: writing key "${stored}" failed: ${error instanceof Error ? error.message : String(error)}`,
        { key: stored, cause: error },
      );
    }
  }

  async read(key: string): Promise<Uint8Array | undefined> {
    const stored = this.#key(key);
    let rows: { value: unknown }[];
    try {
      rows = (await this.#query(`SELECT value FROM ${this.#table} WHERE key = ?`, stored)) as {
        value: unknown;
      }[];
    } catch (error) {
      throw new ArtifactStoreError(
        `@rlm/artifacts: reading key "${stored}" failed: ${error instanceof Error ? error.message : String(error)}`,
        { key: stored, cause: error },
      );
    }
    const value = rows[0]?.value;
    return value instanceof Uint8Array ? value : undefined;
  }

  #key(key: string): string {
    return `${this.#namespace}:${key}`;
  }
}
