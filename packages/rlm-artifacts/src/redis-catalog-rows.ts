import type { ArtifactCatalogEntry } from '@rlm/core';
import {
  type CatalogRows,
  catalogFailure,
  KeyvCatalogRows,
  withLegacyEntries,
} from './catalog-rows.js';
import { ArtifactCorruptError } from './errors/artifact-corrupt-error.js';
import type { KeyvEntries } from './keyv-entries.js';
import { decodeCatalogEntry } from './record-entry.js';

/** The few Redis commands the catalog needs, as a node-redis client names them. */
export interface RedisCatalogCommands {
  eval(
    script: string,
    options: { readonly keys: string[]; readonly arguments: string[] },
  ): Promise<unknown>;
  lRange(key: string, start: number, stop: number): Promise<string[]>;
}

/**
 * Adds a name once: the set of names decides, the list keeps the entries in the order they came.
 * Both get the time to live again, when there is one.
 */
const addScript = `
local added = redis.call('SADD', KEYS[1], ARGV[1])
if added == 1 then redis.call('RPUSH', KEYS[2], ARGV[2]) end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
end
return added`;

/**
 * Catalogs in Redis: per scope a set of names and a list of their entries (JSON), changed only
 * by one Lua script, so concurrent writers on any number of machines never lose a name and the
 * first entry of a name stays. With a time to live, both keys expire that long after the scope's
 * last add (a listed record may have expired before). Listed after the names of a one-entry
 * catalog written through plain Keyv before.
 */
export class RedisCatalogRows implements CatalogRows {
  readonly #client: RedisCatalogCommands;
  readonly #prefix: string;
  readonly #ttlMs: number;
  readonly #legacy: KeyvCatalogRows;

  /** @param options.prefix starts every key, e.g. `rlm:catalog:`. */
  constructor(options: {
    client: RedisCatalogCommands;
    prefix: string;
    index: KeyvEntries;
    ttlMs?: number;
  }) {
    this.#client = options.client;
    this.#prefix = options.prefix;
    this.#ttlMs = options.ttlMs ?? 0;
    this.#legacy = new KeyvCatalogRows(options.index);
  }

  async add(scopeDigest: string, entry: ArtifactCatalogEntry): Promise<void> {
    const key = this.#entriesKey(scopeDigest);
    try {
      await this.#client.eval(addScript, {
        keys: [`${this.#prefix}${scopeDigest}:names`, key],
        arguments: [entry.name, JSON.stringify(entry), String(this.#ttlMs)],
      });
    } catch (error) {
      throw catalogFailure(`adding ${JSON.stringify(entry.name)} to the catalog`, key, error);
    }
  }

  list(scopeDigest: string): Promise<ArtifactCatalogEntry[]> {
    return withLegacyEntries(this.#legacy, scopeDigest, this.#rows(scopeDigest));
  }

  async #rows(scopeDigest: string): Promise<ArtifactCatalogEntry[]> {
    const key = this.#entriesKey(scopeDigest);
    let items: string[];
    try {
      items = await this.#client.lRange(key, 0, -1);
    } catch (error) {
      throw catalogFailure('reading the catalog', key, error);
    }
    return items.map((item, position) => {
      try {
        return decodeCatalogEntry(JSON.parse(item));
      } catch (error) {
        throw new ArtifactCorruptError(
          `@rlm/artifacts: item ${position} of the catalog at key "${key}" is not a catalog entry (${error instanceof Error ? error.message : String(error)}); it was written by something else or is damaged: delete the key`,
          { key, cause: error },
        );
      }
    });
  }

  #entriesKey(scopeDigest: string): string {
    return `${this.#prefix}${scopeDigest}:entries`;
  }
}
