/**
 * The narrow artifact interface: content-addressed blobs, named immutable records and run
 * checkpoints. Adapters (for example `@rlm/artifacts`, on any Keyv store) implement it.
 *
 * Errors are typed and recognisable by `name` (adapters export the classes):
 * - `ArtifactNotFoundError`: a blob id, record name, `@name` reference or checkpoint is unknown.
 * - `ArtifactConflictError`: a record name is taken by different content (records are immutable).
 * - `ArtifactCorruptError`: a stored value does not decode or fails its schema; names the key.
 * - `ArtifactValueError`: an input cannot be stored (not JSON, malformed text, invalid record).
 * - `ArtifactStoreError`: the backing store failed, or the artifact store is closed.
 */
import type { Message } from './language-model.js';
import type { RunUsage } from './run-usage.js';

/** A stored blob. */
export interface ArtifactRef {
  /** The first 12 hex characters of the SHA-256 of the content's bytes (UTF-8 for text). */
  readonly id: string;
  /** Content length in bytes (UTF-8 bytes for text). */
  readonly size: number;
  /** When the content was first stored, in milliseconds since the epoch. */
  readonly createdAt: number;
}

/** What a caller gives to create a named record. */
export interface ArtifactRecordInput {
  /** What kind of thing `value` is: `data`, `file`, `report`, ... Any non-empty string. */
  readonly type: string;
  /**
   * The thing itself. Stored as JSON: it must be JSON-serializable (no functions, symbols,
   * bigints or cycles) and reads back as `JSON.parse(JSON.stringify(value))`.
   */
  readonly value: unknown;
  /** What the record describes, in words the model reads. */
  readonly description: string;
  /** Why it exists. Defaults to `description`. */
  readonly purpose?: string;
  /** Creation time in milliseconds since the epoch. Defaults to now. */
  readonly timestamp?: number;
  /** Extra JSON data (the tool that made it, its inputs, ...). Defaults to `{}`. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** A named, immutable record as stored: seed 003's `{type, value, description, ...}`. */
export interface ArtifactRecord {
  readonly type: string;
  readonly value: unknown;
  readonly description: string;
  readonly purpose: string;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** The JSON kind of a record's value, for the catalog. */
export type ArtifactValueKind = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object';

/** One line of the artifact catalog: a record without its value. */
export interface ArtifactCatalogEntry {
  readonly name: string;
  readonly type: string;
  readonly description: string;
  readonly purpose: string;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  readonly valueKind: ArtifactValueKind;
  /**
   * Characters for a string, items for an array, keys for an object; `undefined` for
   * numbers, booleans and null.
   */
  readonly valueLength: number | undefined;
  /** Bytes of the value's JSON encoding. */
  readonly size: number;
}

/** Resources a run had used when a checkpoint was taken. */
export interface CheckpointBudget extends RunUsage {
  /** Wall time since the run started, in milliseconds. */
  readonly elapsedMs: number;
}

/** The state of a run after one executed step. */
export interface CheckpointInput {
  /** Identifies the run across processes; derive it from the query and the context's hash. */
  readonly runKey: string;
  /** The call (root or child) the checkpoint belongs to. */
  readonly callId: string;
  /** Iterations completed by that call (a non-negative integer). */
  readonly iteration: number;
  /** The full transcript, not the bounded prompt history. */
  readonly transcript: readonly Message[];
  /** Every model-visible variable name, serializable or not. */
  readonly variableNames: readonly string[];
  /** The values of the JSON-serializable variables, by name. */
  readonly variables: Readonly<Record<string, unknown>>;
  /**
   * Variables serialised by the sandbox (see `Sandbox.snapshotVariables`), by name; a name
   * here must not also be in `variables`. `bytes` absent: unchanged since an earlier
   * checkpoint, whose stored blob with that SHA-256 is referenced instead of written again (the
   * save rejects with `ArtifactValueError` when no stored blob has it).
   */
  readonly serializedVariables?: Readonly<Record<string, SerializedVariableInput>>;
  readonly budget: CheckpointBudget;
  /** Extra JSON data for the caller (depth, model ids, ...). Defaults to `{}`. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** One sandbox-serialised variable of a {@link CheckpointInput}. */
export interface SerializedVariableInput {
  /**
   * SHA-256 of the bytes, in lowercase hex, as the sandbox computed it. The store trusts it
   * (it does not hash the bytes again); a wrong one is caught when the bytes are loaded.
   */
  readonly digest: string;
  /** The serialised value; absent when unchanged since the newest checkpoint. */
  readonly bytes?: Uint8Array;
}

/** A checkpoint without its transcript and variable values. */
export interface CheckpointSummary {
  /** Unique per checkpoint. */
  readonly id: string;
  readonly runKey: string;
  /** 1 for a run's first checkpoint, then +1 per save. */
  readonly sequence: number;
  readonly callId: string;
  readonly iteration: number;
  /** When it was saved, in milliseconds since the epoch. */
  readonly timestamp: number;
  /** Messages in its transcript. */
  readonly transcriptLength: number;
  readonly variableNames: readonly string[];
}

/** Options of `ArtifactStore.latestCheckpoint` and `ArtifactStore.loadCheckpoint`. */
export interface LoadCheckpointOptions {
  /**
   * Whether to read the bytes of the variables the sandbox serialised (default `true`). With
   * `false` the checkpoint comes without them (`serializedVariables` is `{}`), in the time its
   * entry and transcript take, and `serializedBlobs` says where each one is: a resume reads
   * them in the background while the model is asked for the next step.
   */
  readonly loadSerializedBytes?: boolean;
}

/** A checkpoint as loaded: everything needed to resume the run. */
export interface Checkpoint extends CheckpointSummary {
  readonly transcript: readonly Message[];
  readonly variables: Readonly<Record<string, unknown>>;
  /**
   * Variables serialised by the sandbox, as bytes to hand back to `Sandbox.restoreVariables`;
   * `{}` when the checkpoint was loaded with `loadSerializedBytes: false`.
   */
  readonly serializedVariables: Readonly<Record<string, Uint8Array>>;
  /**
   * The blob id of each variable serialised by the sandbox and stored as a blob: its bytes are
   * `ArtifactStore.loadBytes(id)`. A store may keep small ones in the checkpoint itself: those
   * always come in `serializedVariables`, and have no blob.
   */
  readonly serializedBlobs: Readonly<Record<string, string>>;
  /** The digest of each of `serializedVariables`, as given when it was saved. */
  readonly serializedDigests: Readonly<Record<string, string>>;
  readonly budget: CheckpointBudget;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * Durable storage for a run's artifacts. Blobs and checkpoints are shared by all scopes;
 * named records live in the store's `scope` (one per run, so a name can be reused by the next
 * run). All methods may reject with `ArtifactStoreError` when the backing store fails or the
 * store is closed.
 */
export interface ArtifactStore extends AsyncDisposable {
  /** The scope named records are read from and written to. */
  readonly scope: string;

  /**
   * A view of the same storage whose records live in `scope` (any string). Views share the
   * connection: closing one closes all.
   */
  scoped(scope: string): ArtifactStore;

  /**
   * Stores content once. Idempotent: the same bytes always give the same id, and storing them
   * again writes nothing and returns the first ref (its `createdAt`). A string and a
   * `Uint8Array` holding its UTF-8 bytes are the same content. Rejects with
   * `ArtifactValueError` for a string with unpaired surrogates (it has no UTF-8 form), and with
   * `ArtifactConflictError` when a different content already has the 12-character id.
   */
  store(content: string | Uint8Array): Promise<ArtifactRef>;

  /**
   * The content as text. Rejects with `ArtifactNotFoundError` for an unknown id, with
   * `ArtifactValueError` when the bytes are not UTF-8, and with `ArtifactCorruptError` when the
   * stored bytes no longer match their hash.
   */
  load(id: string): Promise<string>;

  /** The content as bytes; rejects like {@link ArtifactStore.load} (never for non-UTF-8). */
  loadBytes(id: string): Promise<Uint8Array>;

  /** Whether a blob with this id is stored. Never rejects for an unknown id. */
  has(id: string): Promise<boolean>;

  /**
   * Every stored blob, oldest first. Walks the whole store: a maintenance call, not for every
   * step. Rejects with `ArtifactStoreError` when the Keyv store cannot enumerate keys.
   */
  list(): Promise<ArtifactRef[]>;

  /**
   * Creates the record `name` (any non-empty string; never interpreted as a path) in this
   * scope and returns its catalog entry. Idempotent for the same type, value, description,
   * purpose and metadata (the first timestamp is kept; key order does not matter). Rejects with
   * `ArtifactConflictError` when the name holds different content, and with
   * `ArtifactValueError` for an invalid record (empty type, non-JSON value, ...).
   */
  put(name: string, record: ArtifactRecordInput): Promise<ArtifactCatalogEntry>;

  /** The record `name` with its value, or `undefined` when this scope has none. */
  get(name: string): Promise<ArtifactRecord | undefined>;

  /** Record names in this scope, in creation order. */
  names(): Promise<string[]>;

  /**
   * Catalog entries of this scope's records, in creation order: data, which the loop renders
   * as the prompt's "Available artifacts" section.
   */
  catalog(): Promise<ArtifactCatalogEntry[]>;

  /**
   * Returns a copy of `input` in which every string that is exactly `"@name"` is replaced by
   * the value of record `name`, through nested arrays and plain objects (object keys are left
   * as they are). A string starting with `"@@"` is a literal: one `@` is dropped (`"@@x"`
   * gives `"@x"`). `"@"` alone, and strings with `@` elsewhere, are left as they are.
   * Resolved values are not resolved again. Rejects with `ArtifactNotFoundError` naming every
   * unknown `@name`.
   */
  resolveReferences(input: unknown): Promise<unknown>;

  /**
   * Saves a checkpoint as the newest of its run and returns its summary. What did not change
   * since the last checkpoint (transcript messages, variable values) is not written again. The
   * previous checkpoint stays the newest until the save has finished, whatever stops it.
   * Rejects with `ArtifactValueError` naming a variable whose value (or a transcript message)
   * is not JSON-serializable.
   */
  saveCheckpoint(checkpoint: CheckpointInput): Promise<CheckpointSummary>;

  /** The newest checkpoint of the run, from any process, or `undefined` when it has none. */
  latestCheckpoint(
    runKey: string,
    options?: LoadCheckpointOptions,
  ): Promise<Checkpoint | undefined>;

  /** One checkpoint of the run; rejects with `ArtifactNotFoundError` for an unknown id. */
  loadCheckpoint(runKey: string, id: string, options?: LoadCheckpointOptions): Promise<Checkpoint>;

  /** Summaries of the run's checkpoints, newest first; `[]` when it has none. */
  listCheckpoints(runKey: string): Promise<CheckpointSummary[]>;

  /** Releases the backing store. Idempotent; later calls reject with `ArtifactStoreError`. */
  close(): Promise<void>;
}
