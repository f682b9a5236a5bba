import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import type { ArtifactStore } from '@rlm/core';
import { Keyv } from 'keyv';
import sqlite3 from 'sqlite3';
import { createArtifactStore } from './create-artifact-store.js';
import { ArtifactStoreError } from './errors/artifact-store-error.js';

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
}

/** Rows fetched per query while listing keys (the adapter's default is 10). */
const iterationLimit = 1000;

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
  try {
    await mkdir(dirname(path), { recursive: true });
    await prepareDatabase(path, busyTimeout);
    const index = await openTable(path, 'rlm_index', busyTimeout);
    const content = await openTable(path, 'rlm_blobs', busyTimeout).catch(async (error) => {
      await index.disconnect();
      throw error;
    });
    return createArtifactStore({
      keyv: new Keyv({ store: index, namespace: 'rlm', throwOnErrors: true }),
      blobKeyv: new Keyv({ store: content, namespace: 'rlm', throwOnErrors: true }),
      ...(settings.scope === undefined ? {} : { scope: settings.scope }),
    });
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
async function prepareDatabase(path: string, busyTimeout: number): Promise<void> {
  const database = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened = new sqlite3.Database(path, (error) => (error ? reject(error) : resolve(opened)));
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

async function openTable(path: string, table: string, busyTimeout: number): Promise<KeyvSqlite> {
  const adapter = new KeyvSqlite({ uri: `sqlite://${path}`, table, busyTimeout, iterationLimit });
  await adapter.query('PRAGMA synchronous=NORMAL');
  return adapter;
}
