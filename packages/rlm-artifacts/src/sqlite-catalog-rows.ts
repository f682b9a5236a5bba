import type { ArtifactCatalogEntry } from '@rlm/core';
import {
  type CatalogRows,
  catalogFailure,
  KeyvCatalogRows,
  withLegacyEntries,
} from './catalog-rows.js';
import type { KeyvEntries } from './keyv-entries.js';
import { decodeCatalogEntry } from './record-entry.js';
import { keyDigest } from './sha256.js';
import type { SqlQuery } from './sqlite-lease-rows.js';

/**
 * Catalogs as one row per name in the SQLite index table (`catalog:<scope digest>:<name
 * digest>`, a Keyv entry holding the catalog fields), added with one `INSERT ... ON CONFLICT DO
 * NOTHING`: concurrent writers, in any number of processes, never lose a name, and the first
 * entry of a name stays. Listed in insertion order (SQLite's rowid), after the names of a
 * one-entry catalog written before rows existed.
 */
export class SqliteCatalogRows implements CatalogRows {
  readonly #query: SqlQuery;
  readonly #table: string;
  readonly #index: KeyvEntries;
  readonly #legacy: KeyvCatalogRows;

  constructor(options: { query: SqlQuery; table: string; index: KeyvEntries }) {
    this.#query = options.query;
    this.#table = options.table;
    this.#index = options.index;
    this.#legacy = new KeyvCatalogRows(options.index);
  }

  async add(scopeDigest: string, entry: ArtifactCatalogEntry): Promise<void> {
    const row = await this.#index.encodeRow(
      `${rowPrefix(scopeDigest)}${keyDigest(scopeDigest, entry.name)}`,
      entry,
    );
    await this.#run(`adding ${JSON.stringify(entry.name)} to the catalog`, row.key, () =>
      this.#query(
        `INSERT INTO ${this.#table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING`,
        row.key,
        row.value,
      ),
    );
  }

  list(scopeDigest: string): Promise<ArtifactCatalogEntry[]> {
    return withLegacyEntries(this.#legacy, scopeDigest, this.#rows(scopeDigest));
  }

  async #rows(scopeDigest: string): Promise<ArtifactCatalogEntry[]> {
    const prefix = this.#index.storedKey(rowPrefix(scopeDigest));
    // Every key starting with the prefix, which ends in ':' (the next character is ';').
    const rows = (await this.#run('reading the catalog', `${prefix}*`, () =>
      this.#query(
        `SELECT value FROM ${this.#table} WHERE key > ? AND key < ? ORDER BY rowid`,
        prefix,
        `${prefix.slice(0, -1)};`,
      ),
    )) as { value: string }[];
    // The rows' Keyv entries as one entry holding their array: decoded in one pass.
    return this.#index.decodeRow(
      rowPrefix(scopeDigest),
      `{"value":[${rows.map((row) => row.value).join(',')}]}`,
      decodeCatalogRows,
    );
  }

  async #run(doing: string, key: string, statement: () => Promise<unknown[]>): Promise<unknown[]> {
    try {
      return await statement();
    } catch (error) {
      throw catalogFailure(doing, key, error);
    }
  }
}

/** The Keyv entries of catalog rows (`{ value: entry, expires }` each), as their entries. */
function decodeCatalogRows(value: unknown): ArtifactCatalogEntry[] {
  if (!Array.isArray(value)) throw new TypeError('the catalog rows should make an array');
  return value.map((row: unknown, index) => {
    if (typeof row !== 'object' || row === null || !('value' in row)) {
      throw new TypeError(`catalog row ${index} is not a Keyv entry`);
    }
    return decodeCatalogEntry(row.value);
  });
}

function rowPrefix(scopeDigest: string): string {
  return `catalog:${scopeDigest}:`;
}
