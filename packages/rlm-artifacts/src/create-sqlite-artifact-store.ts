import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type KeyvSqlite from '@keyv/sqlite';
import type { ArtifactStore } from '@rlm/core';
import { Keyv } from 'keyv';
import type sqlite3 from 'sqlite3';
import { checkDiskSpace } from './check-disk-space.js';
import { SqliteBinaryChunks } from './sqlite-binary-chunks.js';
import { createKeyvArtifactStore } from './create-artifact-store.js';
import { ArtifactStoreError } from './errors/artifact-store-error.js';
import type { StoredKey } from './keyv-entries.js';
import { sqliteAtomicRows } from './sqlite-atomic-rows.js';
import { SqliteCatalogRows } from './sqlite-catalog-rows.js';
import { type SqlQuery, SqliteLeaseRows } from './sqlite-lease-rows.js';

/** Where the CLI keeps its store, relative to the working directory. */
export const defaultSqlitePath = '.rlm/rlm.sqlite';

/** Settings of {@link createSqliteArtifactStore}. */
export interface SqliteArtifactStoreSettings {
  /** The database file; its folder is created. Default `.rlm/rlm.sqlite` (from the cwd). */
  readonly path?: string;
  /** The scope named records live in. Default `'default'`. */
  readonly scope?: string;
  /**
   * How long a write waits for another connection or process holding the write lock, in
   * milliseconds, before it rejects. Default 30,000.
   */
  readonly busyTimeoutMs?: number;
  /**
   * Free disk space, in bytes, a blob write must leave beyond twice its own size; a write that
   * would not is refused with `ArtifactStoreError` before anything is written, so the store
   * never fills its disk itself and can still record checkpoints and collect garbage.
   * Default 1,048,576 (1 MiB).
   */
  readonly diskHeadroomBytes?: number;
}

/** The optional peer dependencies the SQLite store runs on. */
interface SqliteDrivers {
  readonly sqlite3: typeof sqlite3;
  readonly KeyvSqlite: typeof KeyvSqlite;
}

/**
 * Loads `sqlite3` and `@keyv/sqlite` when a SQLite store is first made, so that apps using a
 * memory or another Keyv store never install or load a native module.
 */
async function loadSqliteDrivers(): Promise<SqliteDrivers> {
  try {
    const [driver, adapter] = await Promise.all([import('sqlite3'), import('@keyv/sqlite')]);
    return { sqlite3: driver.default, KeyvSqlite: adapter.default };
  } catch (error) {
    throw new ArtifactStoreError(
      '@rlm/artifacts: createSqliteArtifactStore needs the packages sqlite3 and @keyv/sqlite; install them (npm i sqlite3 @keyv/sqlite) or use another Keyv store',
      { cause: error },
    );
  }
}

/** Rows fetched per query while listing keys (the adapter's default is 10). */
const iterationLimit = 1000;

/** The Keyv namespace of both tables. */
const namespace = 'rlm';

/**
 * An `ArtifactStore` in one SQLite file, through `@keyv/sqlite`. Small entries (metadata,
 * records, checkpoints) and blob content live in two tables (`rlm_index`, `rlm_blobs`), so
 * listing never reads content. The database runs in WAL mode (readers never block the writer;
 * several times the write rate of the rollback journal) with `synchronous=NORMAL`: a crash of
 * the process loses nothing, a power cut at most the last writes. Several processes may share
 * the file. Rejects with `ArtifactStoreError` when the file cannot be created or opened.
 */
export async function createSqliteArtifactStore(
  settings: SqliteArtifactStoreSettings = {},
): Promise<ArtifactStore> {
  const path = resolve(settings.path ?? defaultSqlitePath);
  const busyTimeout = settings.busyTimeoutMs ?? 30_000;
  const headroom = settings.diskHeadroomBytes ?? 1_048_576;
  if (!Number.isSafeInteger(headroom) || headroom < 0) {
    throw new RangeError(
      `@rlm/artifacts: diskHeadroomBytes must be an integer >= 0, got ${headroom}`,
    );
  }
  const drivers = await loadSqliteDrivers();
  try {
    await mkdir(dirname(path), { recursive: true });
    await prepareDatabase(drivers, path, busyTimeout);
    const index = await openTable(drivers, path, 'rlm_index', busyTimeout);
    const content = await openTable(drivers, path, 'rlm_blobs', busyTimeout).catch(
      async (error) => {
        await index.disconnect();
        throw error;
      },
    );
    return createKeyvArtifactStore(
      {
        keyv: new Keyv({ store: index, namespace, throwOnErrors: true }),
        blobKeyv: new Keyv({ store: content, namespace, throwOnErrors: true }),
        ...(settings.scope === undefined ? {} : { scope: settings.scope }),
      },
      {
        listContentKeys: (prefix) => listKeys(content.query as SqlQuery, 'rlm_blobs', prefix),
        checkSpace: (bytes) => checkDiskSpace(dirname(path), bytes, headroom),
        // Byte blobs (checkpoint snapshots) as BLOB values: no base64, no JSON around them.
        binary: new SqliteBinaryChunks({
          query: content.query as SqlQuery,
          table: 'rlm_blobs',
          namespace,
        }),
        // A checkpoint's entry and its run's head in one statement, which also checks the head
        // is the one this store wrote last: one commit, and no read first.
        writeIndexAtomically: sqliteAtomicRows(index.query as SqlQuery, 'rlm_index'),
        // A row per name, added in one statement: no name lost to a concurrent writer.
        catalogs: (entries) =>
          new SqliteCatalogRows({
            query: index.query as SqlQuery,
            table: 'rlm_index',
            index: entries,
          }),
        leases: new SqliteLeaseRows({
          query: index.query as SqlQuery,
          table: 'rlm_index',
          namespace,
        }),
      },
    );
  } catch (error) {
    throw new ArtifactStoreError(
      `@rlm/artifacts: cannot open the SQLite artifact store at ${path}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * Sets up the file before the Keyv adapters open it (they create their tables at once): a new
 * database gets 64 KiB pages, which halves the time to write large blobs compared with the
 * default 4 KiB, and every database is switched to WAL, which persists in the file.
 */
async function prepareDatabase(
  drivers: SqliteDrivers,
  path: string,
  busyTimeout: number,
): Promise<void> {
  const database = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened = new drivers.sqlite3.Database(path, (error) =>
      error ? reject(error) : resolve(opened),
    );
  });
  try {
    database.configure('busyTimeout', busyTimeout);
    await new Promise<void>((resolve, reject) => {
      database.exec('PRAGMA page_size=65536; PRAGMA journal_mode=WAL;', (error) =>
        error ? reject(error) : resolve(),
      );
    });
  } finally {
    await new Promise<void>((resolve) => database.close(() => resolve()));
  }
}

async function openTable(
  drivers: SqliteDrivers,
  path: string,
  table: string,
  busyTimeout: number,
): Promise<KeyvSqlite> {
  const adapter = new drivers.KeyvSqlite({
    uri: `sqlite://${path}`,
    table,
    busyTimeout,
    iterationLimit,
  });
  await adapter.query('PRAGMA synchronous=NORMAL');
  return adapter;
}

/**
 * The keys of `table` starting with `prefix` (namespace dropped) and the byte sizes of their
 * values, without reading the values, in pages ordered by key (so deleting while listing skips
 * nothing).
 */
async function* listKeys(
  query: SqlQuery,
  table: string,
  prefix: string,
): AsyncGenerator<StoredKey> {
  const start = `${namespace}:${prefix}`;
  let after = start;
  let inclusive = true;
  while (true) {
    const rows = (await query(
      `SELECT key, length(CAST(value AS BLOB)) AS size FROM ${table} WHERE key ${inclusive ? '>=' : '>'} ? ORDER BY key LIMIT ?`,
      after,
      iterationLimit,
    )) as { key: string; size: number }[];
    for (const row of rows) {
      if (!row.key.startsWith(start)) return;
      yield { key: row.key.slice(namespace.length + 1), size: row.size };
    }
    if (rows.length < iterationLimit) return;
    after = rows.at(-1)!.key;
    inclusive = false;
  }
}
