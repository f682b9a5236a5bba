import type {
  ArtifactCatalogEntry,
  ArtifactRecord,
  ArtifactRecordInput,
  ArtifactValueKind,
} from '@rlm/core';
import { findReferences, replaceReferences } from './artifact-references.js';
import type { BlobStore } from './blob-store.js';
import { entryVersion } from './entry-fields.js';
import { ArtifactConflictError } from './errors/artifact-conflict-error.js';
import { ArtifactCorruptError } from './errors/artifact-corrupt-error.js';
import { ArtifactNotFoundError } from './errors/artifact-not-found-error.js';
import { ArtifactValueError } from './errors/artifact-value-error.js';
import type { CatalogRows } from './catalog-rows.js';
import type { KeyedLock } from './keyed-lock.js';
import type { KeyvEntries } from './keyv-entries.js';
import { describeJson, isPlainObject, jsonEqual, toJson } from './json-value.js';
import { catalogFields, decodeRecordEntry, type RecordEntry } from './record-entry.js';
import { keyDigest, sha256Hex } from './sha256.js';

/** Values whose JSON is longer than this many characters are kept in a blob, not inline. */
const maxInlineChars = 4096;

/** Names listed in an unknown-reference error, at most. */
const maxNamesInError = 20;

/**
 * The named, immutable records of one scope. A record lives at `record:<digest>` (its name is
 * never part of a key, so any string is safe); the scope's catalog (see {@link CatalogRows})
 * lists them in creation order, so the prompt's catalog is one read.
 */
export class RecordStore {
  readonly #index: KeyvEntries;
  readonly #blobs: BlobStore;
  readonly #lock: KeyedLock;
  readonly #catalogs: CatalogRows;
  readonly #scope: string;
  readonly #scopeDigest: string;

  constructor(options: {
    index: KeyvEntries;
    blobs: BlobStore;
    lock: KeyedLock;
    catalogs: CatalogRows;
    scope: string;
  }) {
    this.#index = options.index;
    this.#blobs = options.blobs;
    this.#lock = options.lock;
    this.#catalogs = options.catalogs;
    this.#scope = options.scope;
    this.#scopeDigest = keyDigest(options.scope);
  }

  async put(name: string, input: ArtifactRecordInput): Promise<ArtifactCatalogEntry> {
    const record = normalize(name, input);
    return this.#lock.run(this.#scopeDigest, async () => {
      const existing = await this.#index.read(this.#recordKey(name), decodeRecordEntry);
      if (existing !== undefined) {
        if (!(await this.#sameContent(existing, record))) {
          throw new ArtifactConflictError(
            `@rlm/artifacts: artifact ${JSON.stringify(`@${name}`)} already exists with different content; records are immutable, so store the new one under another name`,
            { key: name },
          );
        }
        if (this.#index.expires) {
          // Put again: it lives another full time to live, and so does the blob of its value.
          if (existing.valueBlob !== undefined) await this.#blobs.storeJson(record.valueJson);
          await this.#index.write(this.#recordKey(name), existing);
        }
        await this.#catalogs.add(this.#scopeDigest, catalogFields(existing));
        return catalogFields(existing);
      }
      const valueLocation =
        record.valueJson.length <= maxInlineChars
          ? { valueJson: record.valueJson }
          : { valueBlob: (await this.#blobs.storeJson(record.valueJson)).id };
      const entry: RecordEntry = {
        kind: 'rlm.record',
        version: entryVersion,
        ...record.catalog,
        metadata: record.metadata,
        ...valueLocation,
      };
      await this.#index.write(this.#recordKey(name), entry);
      await this.#catalogs.add(this.#scopeDigest, record.catalog);
      return record.catalog;
    });
  }

  async get(name: string): Promise<ArtifactRecord | undefined> {
    const entry = await this.#index.read(this.#recordKey(name), decodeRecordEntry);
    if (entry === undefined) return undefined;
    return {
      type: entry.type,
      value: await this.#value(entry),
      description: entry.description,
      purpose: entry.purpose,
      timestamp: entry.timestamp,
      metadata: entry.metadata,
    };
  }

  catalog(): Promise<ArtifactCatalogEntry[]> {
    return this.#catalogs.list(this.#scopeDigest);
  }

  async resolveReferences(input: unknown): Promise<unknown> {
    const names = findReferences(input);
    if (names.length === 0) return replaceReferences(input, new Map());
    const records = await Promise.all(
      names.map(async (name) => [name, await this.get(name)] as const),
    );
    const missing = records.filter(([, record]) => record === undefined).map(([name]) => name);
    if (missing.length > 0) {
      const known = (await this.catalog()).map((entry) => JSON.stringify(`@${entry.name}`));
      const listed =
        known.length === 0
          ? 'there are no artifacts yet'
          : `known: ${known.slice(0, maxNamesInError).join(', ')}${known.length > maxNamesInError ? ', ...' : ''}`;
      throw new ArtifactNotFoundError(
        `@rlm/artifacts: unknown artifact${missing.length > 1 ? 's' : ''} ${missing.map((name) => JSON.stringify(`@${name}`)).join(', ')} (${listed}); to pass a literal string starting with "@", write "@@"`,
        { kind: 'record', names: missing },
      );
    }
    return replaceReferences(
      input,
      new Map(records.map(([name, record]) => [name, record?.value])),
    );
  }

  #recordKey(name: string): string {
    return `record:${keyDigest(this.#scope, name)}`;
  }

  async #value(entry: RecordEntry): Promise<unknown> {
    const key = this.#recordKey(entry.name);
    if (entry.valueBlob !== undefined) return this.#blobs.loadJson(entry.valueBlob, key);
    try {
      return JSON.parse(entry.valueJson as string);
    } catch (error) {
      const storedKey = this.#index.storedKey(key);
      throw new ArtifactCorruptError(
        `@rlm/artifacts: the value of artifact ${JSON.stringify(`@${entry.name}`)} (key "${storedKey}") is not valid JSON; the record is damaged`,
        { key: storedKey, cause: error },
      );
    }
  }

  async #sameContent(existing: RecordEntry, record: NormalizedRecord): Promise<boolean> {
    const { catalog } = record;
    if (
      existing.type !== catalog.type ||
      existing.description !== catalog.description ||
      existing.purpose !== catalog.purpose ||
      !jsonEqual(existing.metadata, record.metadata)
    ) {
      return false;
    }
    if (existing.valueJson === record.valueJson) return true;
    if (existing.valueBlob === sha256Hex(record.valueJson).slice(0, 12)) return true;
    return jsonEqual(await this.#value(existing), JSON.parse(record.valueJson));
  }
}

interface NormalizedRecord {
  readonly catalog: ArtifactCatalogEntry;
  readonly metadata: Record<string, unknown>;
  readonly valueJson: string;
}

/** Checks a record input and turns it into what is stored; throws `ArtifactValueError`. */
function normalize(name: string, input: ArtifactRecordInput): NormalizedRecord {
  const label = `artifact ${JSON.stringify(`@${name}`)}`;
  const invalid = (problem: string) =>
    new ArtifactValueError(`@rlm/artifacts: ${label} is invalid: ${problem}`);
  if (typeof name !== 'string' || name.length === 0) {
    throw new ArtifactValueError('@rlm/artifacts: an artifact name must be a non-empty string');
  }
  if (!isPlainObject(input)) throw invalid('the record must be an object');
  if (typeof input.type !== 'string' || input.type.length === 0) {
    throw invalid('"type" must be a non-empty string');
  }
  if (typeof input.description !== 'string') throw invalid('"description" must be a string');
  if (input.purpose !== undefined && typeof input.purpose !== 'string') {
    throw invalid('"purpose" must be a string when given');
  }
  if (
    input.timestamp !== undefined &&
    (typeof input.timestamp !== 'number' || !Number.isFinite(input.timestamp))
  ) {
    throw invalid('"timestamp" must be a finite number of milliseconds when given');
  }
  if (input.metadata !== undefined && !isPlainObject(input.metadata)) {
    throw invalid('"metadata" must be a plain object when given');
  }
  const valueJson = toJson(input.value, `the value of ${label}`);
  const metadata = JSON.parse(toJson(input.metadata ?? {}, `the metadata of ${label}`));
  return {
    catalog: {
      name,
      type: input.type,
      description: input.description,
      purpose: input.purpose ?? input.description,
      timestamp: input.timestamp ?? Date.now(),
      ...describeValue(input.value, valueJson),
      size: Buffer.byteLength(valueJson, 'utf8'),
    },
    metadata,
    valueJson,
  };
}

/**
 * The JSON kind and length of a value: read from the value itself for strings and arrays, whose
 * JSON mirrors them, so a large text is not parsed back just to be described.
 */
function describeValue(
  value: unknown,
  json: string,
): { valueKind: ArtifactValueKind; valueLength: number | undefined } {
  if (typeof value === 'string') return { valueKind: 'string', valueLength: value.length };
  if (Array.isArray(value) && json.startsWith('[')) {
    return { valueKind: 'array', valueLength: value.length };
  }
  return describeJson(JSON.parse(json));
}
