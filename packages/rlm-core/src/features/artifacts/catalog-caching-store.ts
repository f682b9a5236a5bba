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
} from '../../artifact-store.js';

/**
 * Counts the record writes started and finished through every view that shares it, so that
 * each view knows when a catalog it read may be stale.
 */
export class RecordWriteCount {
  #count = 0;

  /** Changes whenever a write through a sharing view starts or ends. */
  get count(): number {
    return this.#count;
  }

  /** Runs `write`, counting its start and its end (either way). */
  async around<T>(write: () => Promise<T>): Promise<T> {
    this.#count += 1;
    try {
      return await write();
    } finally {
      this.#count += 1;
    }
  }
}

/**
 * A view of an artifact store that reads the catalog of named records once and reuses it until
 * a record may have changed: a write (`put`, or `resolveReferences`, which may copy records)
 * through this view or any view sharing its {@link RecordWriteCount} started or ended since the
 * read began. The loop shows the catalog before every model request; without this, each one
 * would read the store, though only host functions and host tools write records. Writes made
 * to the same scope past every view (another process, or the underlying store used directly)
 * are seen after the next write through a view. A failed read is not kept.
 */
export class CatalogCachingStore implements ArtifactStore {
  readonly #store: ArtifactStore;
  readonly #writes: RecordWriteCount;
  #cached:
    | { readonly writes: number; readonly catalog: Promise<ArtifactCatalogEntry[]> }
    | undefined;

  /** @param writes shared by the views whose writes make this view's catalog stale. */
  constructor(store: ArtifactStore, writes: RecordWriteCount = new RecordWriteCount()) {
    this.#store = store;
    this.#writes = writes;
  }

  get scope(): string {
    return this.#store.scope;
  }

  /** A caching view of `scope` sharing this view's write count. */
  scoped(scope: string): ArtifactStore {
    return new CatalogCachingStore(this.#store.scoped(scope), this.#writes);
  }

  store(content: string | Uint8Array): Promise<ArtifactRef> {
    return this.#store.store(content);
  }

  load(id: string): Promise<string> {
    return this.#store.load(id);
  }

  loadBytes(id: string): Promise<Uint8Array> {
    return this.#store.loadBytes(id);
  }

  has(id: string): Promise<boolean> {
    return this.#store.has(id);
  }

  list(): Promise<ArtifactRef[]> {
    return this.#store.list();
  }

  put(name: string, record: ArtifactRecordInput): Promise<ArtifactCatalogEntry> {
    return this.#writes.around(() => this.#store.put(name, record));
  }

  get(name: string): Promise<ArtifactRecord | undefined> {
    return this.#store.get(name);
  }

  names(): Promise<string[]> {
    return this.#store.names();
  }

  /** The catalog as last read, when no record write started or ended since; a new array. */
  async catalog(): Promise<ArtifactCatalogEntry[]> {
    const writes = this.#writes.count;
    let cached = this.#cached;
    if (cached === undefined || cached.writes !== writes) {
      cached = { writes, catalog: this.#store.catalog() };
      this.#cached = cached;
    }
    try {
      return [...(await cached.catalog)];
    } catch (error) {
      if (this.#cached === cached) this.#cached = undefined;
      throw error;
    }
  }

  resolveReferences(input: unknown): Promise<unknown> {
    return this.#writes.around(() => this.#store.resolveReferences(input));
  }

  saveCheckpoint(checkpoint: CheckpointInput): Promise<CheckpointSummary> {
    return this.#store.saveCheckpoint(checkpoint);
  }

  latestCheckpoint(
    runKey: string,
    options?: LoadCheckpointOptions,
  ): Promise<Checkpoint | undefined> {
    return this.#store.latestCheckpoint(runKey, options);
  }

  loadCheckpoint(runKey: string, id: string, options?: LoadCheckpointOptions): Promise<Checkpoint> {
    return this.#store.loadCheckpoint(runKey, id, options);
  }

  listCheckpoints(runKey: string): Promise<CheckpointSummary[]> {
    return this.#store.listCheckpoints(runKey);
  }

  close(): Promise<void> {
    return this.#store.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#store[Symbol.asyncDispose]();
  }
}
