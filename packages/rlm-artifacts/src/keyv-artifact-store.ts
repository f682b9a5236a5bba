import type {
  ArtifactCatalogEntry,
  ArtifactRecord,
  ArtifactRecordInput,
  ArtifactRef,
  ArtifactStore,
  Checkpoint,
  CheckpointInput,
  CheckpointSummary,
  LoadCheckpointOptions,
} from '@rlm/core';
import type { BinaryChunks } from './binary-chunks.js';
import { BlobStore } from './blob-store.js';
import { type CatalogRows, KeyvCatalogRows } from './catalog-rows.js';
import { CheckpointStore } from './checkpoint-store.js';
import { KeyedLock } from './keyed-lock.js';
import type { KeyvEntries } from './keyv-entries.js';
import { KeyvLeaseRows, type LeaseRows } from './lease-rows.js';
import { RecordStore } from './record-store.js';
import { type StoreInternals, storeInternals } from './store-internals.js';

/** What every scoped view of one store shares. */
export interface SharedStorage {
  readonly index: KeyvEntries;
  readonly content: KeyvEntries;
  readonly blobs: BlobStore;
  readonly checkpoints: CheckpointStore;
  readonly recordLock: KeyedLock;
  readonly catalogs: CatalogRows;
  readonly leases: LeaseRows;
}

/** The `ArtifactStore` on Keyv: blobs, checkpoints and the records of one scope. */
export class KeyvArtifactStore implements ArtifactStore {
  readonly scope: string;
  readonly #shared: SharedStorage;
  readonly #records: RecordStore;

  constructor(shared: SharedStorage, scope: string) {
    this.#shared = shared;
    this.scope = scope;
    this.#records = new RecordStore({
      index: shared.index,
      blobs: shared.blobs,
      lock: shared.recordLock,
      catalogs: shared.catalogs,
      scope,
    });
  }

  /** Builds the shared parts over an index store and a content store (possibly the same). */
  static create(options: {
    index: KeyvEntries;
    content: KeyvEntries;
    chunkChars: number;
    scope: string;
    /** Default: lease rows through `index`, atomic within this process. */
    leases?: LeaseRows;
    /** Default: one catalog entry per scope through `index`, atomic within this process. */
    catalogs?: CatalogRows;
    /** Rejects a blob write of that many bytes before it starts (disk space). */
    checkSpace?: (bytes: number) => Promise<void>;
    /** Where `content` can hold bytes as they are: byte blobs are stored so, not as base64. */
    binary?: BinaryChunks;
  }): KeyvArtifactStore {
    const { index, content, chunkChars, checkSpace, binary } = options;
    const blobs = new BlobStore({
      index,
      content,
      chunkChars,
      ...(checkSpace === undefined ? {} : { checkSpace }),
      ...(binary === undefined ? {} : { binary }),
    });
    const checkpoints = new CheckpointStore({ index, blobs, lock: new KeyedLock() });
    const leases = options.leases ?? new KeyvLeaseRows(index);
    const catalogs = options.catalogs ?? new KeyvCatalogRows(index);
    return new KeyvArtifactStore(
      { index, content, blobs, checkpoints, recordLock: new KeyedLock(), catalogs, leases },
      options.scope,
    );
  }

  /** For `acquireRunLease` and `collectGarbage`. */
  get [storeInternals](): StoreInternals {
    return { blobs: this.#shared.blobs, leases: this.#shared.leases };
  }

  scoped(scope: string): ArtifactStore {
    return new KeyvArtifactStore(this.#shared, scope);
  }

  store(content: string | Uint8Array): Promise<ArtifactRef> {
    return this.#shared.blobs.store(content);
  }

  load(id: string): Promise<string> {
    return this.#shared.blobs.load(id);
  }

  loadBytes(id: string): Promise<Uint8Array> {
    return this.#shared.blobs.loadBytes(id);
  }

  has(id: string): Promise<boolean> {
    return this.#shared.blobs.has(id);
  }

  list(): Promise<ArtifactRef[]> {
    return this.#shared.blobs.list();
  }

  put(name: string, record: ArtifactRecordInput): Promise<ArtifactCatalogEntry> {
    return this.#records.put(name, record);
  }

  get(name: string): Promise<ArtifactRecord | undefined> {
    return this.#records.get(name);
  }

  async names(): Promise<string[]> {
    return (await this.#records.catalog()).map((entry) => entry.name);
  }

  catalog(): Promise<ArtifactCatalogEntry[]> {
    return this.#records.catalog();
  }

  resolveReferences(input: unknown): Promise<unknown> {
    return this.#records.resolveReferences(input);
  }

  saveCheckpoint(checkpoint: CheckpointInput): Promise<CheckpointSummary> {
    return this.#shared.checkpoints.save(checkpoint);
  }

  latestCheckpoint(
    runKey: string,
    options?: LoadCheckpointOptions,
  ): Promise<Checkpoint | undefined> {
    return this.#shared.checkpoints.latest(runKey, options);
  }

  loadCheckpoint(runKey: string, id: string, options?: LoadCheckpointOptions): Promise<Checkpoint> {
    return this.#shared.checkpoints.load(runKey, id, options);
  }

  listCheckpoints(runKey: string): Promise<CheckpointSummary[]> {
    return this.#shared.checkpoints.list(runKey);
  }

  async close(): Promise<void> {
    await this.#shared.index.close();
    if (this.#shared.content !== this.#shared.index) await this.#shared.content.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
