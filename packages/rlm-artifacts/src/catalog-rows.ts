import type { ArtifactCatalogEntry } from '@rlm/core';
import { entryVersion } from './entry-fields.js';
import { ArtifactStoreError } from './errors/artifact-store-error.js';
import { KeyedLock } from './keyed-lock.js';
import type { KeyvEntries } from './keyv-entries.js';
import { decodeRecordIndex, type RecordIndex } from './record-entry.js';

/**
 * Where the catalog of each scope of named records lives: every name once, in the order it was
 * first added, with its catalog fields. `scopeDigest` is `keyDigest(scope)`.
 */
export interface CatalogRows {
  /**
   * Adds `entry` unless the scope already lists its name; idempotent. Concurrent adds never lose
   * a name: atomic across processes on SQLite and Redis, within one process elsewhere.
   */
  add(scopeDigest: string, entry: ArtifactCatalogEntry): Promise<void>;
  /** The scope's entries, oldest first; `[]` for a scope with none. */
  list(scopeDigest: string): Promise<ArtifactCatalogEntry[]>;
}

/**
 * The catalog as one index entry per scope (`records:<digest>`) listing every name, read,
 * extended and written again under a lock held within this process: atomic for one process (the
 * memory store, any Keyv store), not across processes. Stores that can do better keep reading
 * these entries, written before they did ({@link withLegacyEntries}).
 */
export class KeyvCatalogRows implements CatalogRows {
  readonly #index: KeyvEntries;
  readonly #lock = new KeyedLock();

  constructor(index: KeyvEntries) {
    this.#index = index;
  }

  add(scopeDigest: string, entry: ArtifactCatalogEntry): Promise<void> {
    const key = legacyCatalogKey(scopeDigest);
    return this.#lock.run(key, async () => {
      const entries = await this.list(scopeDigest);
      if (entries.some((listed) => listed.name === entry.name)) return;
      const updated: RecordIndex = {
        kind: 'rlm.records',
        version: entryVersion,
        entries: [...entries, entry],
      };
      await this.#index.write(key, updated);
    });
  }

  async list(scopeDigest: string): Promise<ArtifactCatalogEntry[]> {
    const index = await this.#index.read(legacyCatalogKey(scopeDigest), decodeRecordIndex);
    return index === undefined ? [] : [...index.entries];
  }
}

/**
 * The entries of a scope's one-entry catalog ({@link KeyvCatalogRows}), then those of `rows`
 * whose names it does not list: a store that moved to rows still lists the names put before.
 */
export async function withLegacyEntries(
  legacy: KeyvCatalogRows,
  scopeDigest: string,
  rows: Promise<ArtifactCatalogEntry[]>,
): Promise<ArtifactCatalogEntry[]> {
  const [old, added] = await Promise.all([legacy.list(scopeDigest), rows]);
  if (old.length === 0) return added;
  const listed = new Set(old.map((entry) => entry.name));
  return [...old, ...added.filter((entry) => !listed.has(entry.name))];
}

/** A backend's failure while `doing` something to the catalog at `key`, as the store reports it. */
export function catalogFailure(doing: string, key: string, error: unknown): ArtifactStoreError {
  return new ArtifactStoreError(
    `@rlm/artifacts: ${doing} (key "${key}") failed: ${error instanceof Error ? error.message : String(error)}`,
    { key, cause: error },
  );
}

function legacyCatalogKey(scopeDigest: string): string {
  return `records:${scopeDigest}`;
}
