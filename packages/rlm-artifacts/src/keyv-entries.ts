import type { Keyv } from 'keyv';
import { ArtifactCorruptError } from './errors/artifact-corrupt-error.js';
import { ArtifactStoreError } from './errors/artifact-store-error.js';
import { isPlainObject } from './json-value.js';

/** Checks a stored value's shape; throws (any error) when it does not match. */
export type Decoder<T> = (value: unknown) => T;

/** One stored key (without the Keyv namespace) and the size of its stored value, in characters. */
export interface StoredKey {
  readonly key: string;
  readonly size: number;
}

/**
 * Lists the keys starting with `prefix` (without the namespace), with their stored sizes,
 * without reading values when the backend allows it (SQLite does).
 */
export type KeyLister = (prefix: string) => AsyncIterable<StoredKey>;

/** One row as the backing store keeps it: the key with the Keyv namespace, the serialised entry. */
export interface StoredRow {
  readonly key: string;
  readonly value: string;
}

/** A row that must hold an entry whose `id` is `id` (`undefined`: no row) for a write to happen. */
export interface RowCondition {
  /** The key with the Keyv namespace. */
  readonly key: string;
  readonly id: string | undefined;
}

/**
 * Writes rows in one atomic step: all of them, or (when it rejects) none. With `condition`, only
 * when the condition holds, checked in that same step. Resolves whether the rows were written.
 * For backends that can (SQLite: one statement).
 */
export type AtomicRowWriter = (
  rows: readonly StoredRow[],
  condition?: RowCondition,
) => Promise<boolean>;

/**
 * Typed reads and writes of one Keyv instance. Every read is schema-checked: a value that does
 * not decode is an `ArtifactCorruptError` naming its key, a store failure an
 * `ArtifactStoreError`; neither is ever mistaken for a missing key. Entries never expire, unless
 * the entries are given a time to live: then each expires that long after its last write.
 */
export class KeyvEntries {
  readonly #keyv: Keyv;
  readonly #listKeys: KeyLister | undefined;
  readonly #writeAtomically: AtomicRowWriter | undefined;
  readonly #ttlMs: number | undefined;
  #closed = false;

  /**
   * @param options.writeAtomically how the backend writes rows all or none, if it can; rows are
   *   serialised as Keyv does, so Keyv reads them back.
   * @param options.ttlMs every write expires this many milliseconds later (Keyv's `ttl`).
   */
  constructor(
    keyv: Keyv,
    options: { listKeys?: KeyLister; writeAtomically?: AtomicRowWriter; ttlMs?: number } = {},
  ) {
    this.#keyv = keyv;
    this.#listKeys = options.listKeys;
    this.#writeAtomically = options.writeAtomically;
    this.#ttlMs = options.ttlMs;
  }

  /** The time to live of every write, in milliseconds; `undefined` when entries never expire. */
  get ttlMs(): number | undefined {
    return this.#ttlMs;
  }

  /** Whether entries expire (a time to live was given). */
  get expires(): boolean {
    return this.#ttlMs !== undefined;
  }

  /** The key as the backing store sees it (with the Keyv namespace), for messages. */
  storedKey(key: string): string {
    const namespace = this.#keyv.namespace;
    return namespace ? `${namespace}:${key}` : key;
  }

  /** The decoded value, or `undefined` when the key is absent. */
  async read<T>(key: string, decode: Decoder<T>): Promise<T | undefined> {
    return (await this.readWithExpiry(key, decode))?.value;
  }

  /**
   * The decoded value and when it expires (epoch milliseconds; `undefined`: never), or
   * `undefined` when the key is absent.
   */
  async readWithExpiry<T>(
    key: string,
    decode: Decoder<T>,
  ): Promise<{ readonly value: T; readonly expiresAt: number | undefined } | undefined> {
    this.assertOpen(key);
    let raw: unknown;
    try {
      raw = await this.#keyv.getRaw(key);
    } catch (error) {
      throw this.#readFailure(key, error);
    }
    if (raw === undefined) return undefined;
    if (!isPlainObject(raw) || !('value' in raw)) {
      throw this.#corrupt(key, new TypeError('not a Keyv entry'));
    }
    const expiresAt = typeof raw.expires === 'number' ? raw.expires : undefined;
    return { value: this.#decode(key, raw.value, decode), expiresAt };
  }

  /** Writes `value` under `key`, replacing what was there; it expires after the time to live, if any. */
  async write(key: string, value: unknown): Promise<void> {
    this.assertOpen(key);
    let written: boolean;
    try {
      written = await this.#keyv.set(key, value, this.#ttlMs ?? 0);
    } catch (error) {
      throw new ArtifactStoreError(
        `@rlm/artifacts: writing key "${this.storedKey(key)}" failed: ${messageOf(error)}`,
        { key: this.storedKey(key), cause: error },
      );
    }
    if (!written) {
      throw new ArtifactStoreError(
        `@rlm/artifacts: the Keyv store did not write key "${this.storedKey(key)}"; create the Keyv with throwOnErrors: true to see why`,
        { key: this.storedKey(key) },
      );
    }
  }

  /**
   * Writes every entry with no expiry: all at once, or none, where the backend can; else one
   * after the other, in order, so that a failure or a crash part-way leaves exactly the
   * entries before it written (write what others point at first).
   */
  async writeAll(entries: readonly (readonly [key: string, value: unknown])[]): Promise<void> {
    if (this.#writeAtomically === undefined || entries.length < 2) {
      for (const [key, value] of entries) await this.write(key, value);
      return;
    }
    await this.#writeRows(this.#writeAtomically, entries, undefined);
  }

  /** Whether {@link KeyvEntries.writeAllIf} can be used: the backend checks and writes at once. */
  get writesConditionally(): boolean {
    return this.#writeAtomically !== undefined;
  }

  /**
   * Writes every entry at once, all or none, only when the entry at `condition.key` is an
   * object whose `id` is `condition.id` (`undefined`: no entry there), checked in the same
   * step; resolves whether it wrote. Throws a `TypeError` when the backend cannot (see
   * {@link KeyvEntries.writesConditionally}).
   */
  async writeAllIf(
    entries: readonly (readonly [key: string, value: unknown])[],
    condition: { readonly key: string; readonly id: string | undefined },
  ): Promise<boolean> {
    if (this.#writeAtomically === undefined) {
      throw new TypeError('@rlm/artifacts: this store cannot write conditionally');
    }
    const { id } = condition;
    return this.#writeRows(this.#writeAtomically, entries, {
      key: this.storedKey(condition.key),
      // As Keyv stores it: a string starting with ':' gets another one.
      id: id?.startsWith(':') ? `:${id}` : id,
    });
  }

  /**
   * `value` as the backend would hold it under `key`: the key with the namespace, the entry
   * serialised as Keyv does (no expiry), for backends that write rows themselves.
   */
  async encodeRow(key: string, value: unknown): Promise<StoredRow> {
    this.assertOpen(key);
    const serialized = await this.#keyv.serializeData({ value, expires: undefined });
    if (typeof serialized !== 'string') {
      throw new TypeError('@rlm/artifacts: this Keyv does not serialise entries to text');
    }
    return { key: this.storedKey(key), value: serialized };
  }

  /**
   * The serialised entry a backend read at `key` (without the namespace), decoded as
   * {@link KeyvEntries.read} would.
   */
  async decodeRow<T>(key: string, serialized: string, decode: Decoder<T>): Promise<T> {
    let raw: unknown;
    try {
      raw = await this.#keyv.deserializeData(serialized);
    } catch (error) {
      throw this.#corrupt(key, error);
    }
    if (!isPlainObject(raw) || !('value' in raw)) {
      throw this.#corrupt(key, new TypeError('not a Keyv entry'));
    }
    return this.#decode(key, raw.value, decode);
  }

  async #writeRows(
    writeAtomically: AtomicRowWriter,
    entries: readonly (readonly [key: string, value: unknown])[],
    condition: RowCondition | undefined,
  ): Promise<boolean> {
    for (const [key] of entries) this.assertOpen(key);
    const keys = entries.map(([key]) => this.storedKey(key));
    try {
      const rows = await Promise.all(entries.map(([key, value]) => this.encodeRow(key, value)));
      return await writeAtomically(rows, condition);
    } catch (error) {
      throw new ArtifactStoreError(
        `@rlm/artifacts: writing keys "${keys.join('", "')}" failed: ${messageOf(error)}`,
        { key: keys[0]!, cause: error },
      );
    }
  }

  /** Deletes `key`; resolves whether it was there. Idempotent. */
  async delete(key: string): Promise<boolean> {
    this.assertOpen(key);
    try {
      return await this.#keyv.delete(key);
    } catch (error) {
      throw new ArtifactStoreError(
        `@rlm/artifacts: deleting key "${this.storedKey(key)}" failed: ${messageOf(error)}`,
        { key: this.storedKey(key), cause: error },
      );
    }
  }

  /**
   * Every key starting with `prefix`, with its stored size. Reads no values when the store was
   * given a key lister; otherwise walks the entries (values included).
   */
  async *keys(prefix: string): AsyncGenerator<StoredKey> {
    if (this.#listKeys === undefined) {
      for await (const [key, value] of this.entries(prefix, (raw) => raw)) {
        yield {
          key,
          size: typeof value === 'string' ? value.length : JSON.stringify(value).length,
        };
      }
      return;
    }
    this.assertOpen(prefix);
    const keys = this.#listKeys(prefix)[Symbol.asyncIterator]();
    while (true) {
      let next: IteratorResult<StoredKey>;
      try {
        next = await keys.next();
      } catch (error) {
        throw new ArtifactStoreError(
          `@rlm/artifacts: listing keys of "${this.storedKey(prefix)}*" failed: ${messageOf(error)}`,
          { cause: error },
        );
      }
      if (next.done) return;
      yield next.value;
    }
  }

  async has(key: string): Promise<boolean> {
    this.assertOpen(key);
    try {
      return await this.#keyv.has(key);
    } catch (error) {
      throw this.#readFailure(key, error);
    }
  }

  /**
   * Every entry whose key starts with `prefix`, decoded, in the store's order. Rejects with
   * `ArtifactStoreError` when the Keyv store cannot enumerate its keys.
   */
  async *entries<T>(prefix: string, decode: Decoder<T>): AsyncGenerator<[string, T]> {
    this.assertOpen(prefix);
    const iterator = this.#keyv.iterator;
    if (iterator === undefined) {
      throw new ArtifactStoreError(
        '@rlm/artifacts: this Keyv store cannot enumerate its keys, so artifacts cannot be listed; use a store with iteration (memory, SQLite, Redis, Postgres, ...)',
      );
    }
    const pairs: AsyncGenerator<[string, unknown]> = iterator(undefined);
    while (true) {
      let next: IteratorResult<[string, unknown]>;
      try {
        next = await pairs.next();
      } catch (error) {
        throw new ArtifactStoreError(
          `@rlm/artifacts: listing keys of "${this.storedKey(prefix)}*" failed: ${messageOf(error)}`,
          { cause: error },
        );
      }
      if (next.done) return;
      const [key, value] = next.value;
      if (key.startsWith(prefix)) {
        yield [key, this.#decode(key, value, decode)];
      }
    }
  }

  /** Throws `ArtifactStoreError` once the store is closed; `key` is what was being accessed. */
  assertOpen(key: string): void {
    if (this.#closed) {
      throw new ArtifactStoreError(
        '@rlm/artifacts: the artifact store is closed; create a new one to read or write',
        { key: this.storedKey(key) },
      );
    }
  }

  /** Disconnects the Keyv store. Idempotent; later calls reject with `ArtifactStoreError`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#keyv.disconnect();
  }

  #decode<T>(key: string, value: unknown, decode: Decoder<T>): T {
    try {
      return decode(value);
    } catch (error) {
      throw this.#corrupt(key, error);
    }
  }

  #corrupt(key: string, cause: unknown): ArtifactCorruptError {
    const storedKey = this.storedKey(key);
    return new ArtifactCorruptError(
      `@rlm/artifacts: the value at key "${storedKey}" is not a valid artifact entry (${messageOf(cause)}); it was written by something else or is damaged: delete the key or use another namespace`,
      { key: storedKey, cause },
    );
  }

  #readFailure(key: string, error: unknown): Error {
    // Keyv decodes while it reads: a value that is not JSON, or JSON that is not a Keyv entry,
    // surfaces as a SyntaxError or TypeError; anything else is the store itself failing.
    if (error instanceof SyntaxError || error instanceof TypeError) {
      return this.#corrupt(key, error);
    }
    const storedKey = this.storedKey(key);
    return new ArtifactStoreError(
      `@rlm/artifacts: reading key "${storedKey}" failed: ${messageOf(error)}`,
      { key: storedKey, cause: error },
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
