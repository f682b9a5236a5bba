import type { BinaryChunks } from './binary-chunks.js';
import type { CatalogRows } from './catalog-rows.js';
import type { ArtifactStore } from '@rlm/core';
import type { Keyv } from 'keyv';
import { KeyvArtifactStore } from './keyv-artifact-store.js';
import { type AtomicRowWriter, type KeyLister, KeyvEntries } from './keyv-entries.js';
import type { LeaseRows } from './lease-rows.js';

/** Default characters per stored chunk of blob content. */
export const defaultChunkChars = 4 * 1024 * 1024;

/** The scope named records use unless another is given. */
export const defaultScope = 'default';

/** Settings of {@link createArtifactStore}. */
export interface ArtifactStoreSettings {
  /**
   * Holds the small entries: blob metadata, records, catalogs and checkpoints (and the blob
   * content too, unless `blobKeyv` is given). Use a namespace of its own (for example `rlm`);
   * never `clear()` it while a store is open. The store disconnects it on `close()`.
   */
  readonly keyv: Keyv;
  /**
   * Holds blob content. Give a Keyv of its own (another table or namespace) when the backend
   * reads values while it lists keys, as SQLite does, so `list()` never reads content.
   * Defaults to `keyv`.
   */
  readonly blobKeyv?: Keyv;
  /** The scope named records live in; see `ArtifactStore.scoped`. Default `'default'`. */
  readonly scope?: string;
  /**
   * Blob content is written in chunks of at most this many characters (text as is, bytes as
   * base64). Lower it for stores that limit value size (Memcache: 1 MB). Default 4 Mi.
   */
  readonly chunkChars?: number;
}

/**
 * An `ArtifactStore` on any Keyv store: Redis, Postgres, SQLite, memory, ... Every value it
 * reads is schema-checked; a store failure or a foreign value rejects with a typed error
 * naming the key, and is never read as a missing key.
 */
export function createArtifactStore(settings: ArtifactStoreSettings): ArtifactStore {
  return createKeyvArtifactStore(settings, {});
}

/**
 * {@link createArtifactStore} with what a backend can do better than plain Keyv: list content
 * keys without reading values, keep run leases and catalogs atomically across processes, refuse
 * a blob write the disk cannot take, write a checkpoint's entry and its head in one checked step,
 * and let every entry expire.
 */
export function createKeyvArtifactStore(
  settings: ArtifactStoreSettings,
  backend: {
    readonly listContentKeys?: KeyLister;
    readonly leases?: LeaseRows;
    /** Built over the index entries this function makes. */
    readonly catalogs?: (index: KeyvEntries) => CatalogRows;
    /** Every entry, blob content included, expires this many milliseconds after its last write. */
    readonly ttlMs?: number;
    readonly checkSpace?: (bytes: number) => Promise<void>;
    readonly binary?: BinaryChunks;
    /**
     * Writes rows of the index store all or none, when a condition holds if given: a
     * checkpoint's entry and its run's head, if the head is the one the store wrote last.
     */
    readonly writeIndexAtomically?: AtomicRowWriter;
  },
): ArtifactStore {
  const chunkChars = settings.chunkChars ?? defaultChunkChars;
  if (!Number.isSafeInteger(chunkChars) || chunkChars < 2) {
    throw new RangeError(`@rlm/artifacts: chunkChars must be an integer >= 2, got ${chunkChars}`);
  }
  const ttl = backend.ttlMs === undefined ? {} : { ttlMs: backend.ttlMs };
  const index = new KeyvEntries(settings.keyv, {
    ...ttl,
    ...(backend.writeIndexAtomically ? { writeAtomically: backend.writeIndexAtomically } : {}),
  });
  const content =
    settings.blobKeyv === undefined || settings.blobKeyv === settings.keyv
      ? index
      : new KeyvEntries(settings.blobKeyv, {
          ...ttl,
          ...(backend.listContentKeys ? { listKeys: backend.listContentKeys } : {}),
        });
  return KeyvArtifactStore.create({
    index,
    content,
    chunkChars,
    scope: settings.scope ?? defaultScope,
    ...(backend.leases ? { leases: backend.leases } : {}),
    ...(backend.catalogs ? { catalogs: backend.catalogs(index) } : {}),
    ...(backend.checkSpace ? { checkSpace: backend.checkSpace } : {}),
    ...(backend.binary ? { binary: backend.binary } : {}),
  });
}
