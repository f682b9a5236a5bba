import type { ArtifactStore } from '@rlm/core';
import { Keyv } from 'keyv';
import { createKeyvArtifactStore } from './create-artifact-store.js';
import { ArtifactStoreError } from './errors/artifact-store-error.js';
import { type RedisCatalogCommands, RedisCatalogRows } from './redis-catalog-rows.js';

/** Settings of {@link createRedisArtifactStore}. */
export interface RedisArtifactStoreSettings {
  /** `redis://[user:password@]host[:port][/db]`, or `rediss://...` for TLS. */
  readonly url: string;
  /**
   * Starts every key (`<namespace>::...` for entries, `<namespace>:catalog:...` for catalogs).
   * Default `rlm`, the namespace the CLI always used: stores written before are read as they are.
   */
  readonly namespace?: string;
  /** The scope named records live in. Default `'default'`. */
  readonly scope?: string;
  /**
   * Every key expires this many milliseconds after its last write: blobs, records, catalogs,
   * checkpoints. A blob stored again past half its time to live is written again, so a record
   * never outlives the blob holding its value. Keep it well above the longest run. Default: keys
   * never expire.
   */
  readonly ttlMs?: number;
  /**
   * How long connecting may take, in milliseconds, before `createRedisArtifactStore` rejects.
   * Default 10,000.
   */
  readonly connectTimeoutMs?: number;
  /** Characters per stored chunk of blob content. Default 4 Mi. */
  readonly chunkChars?: number;
}

/** Backoff between reconnection attempts once connected, in milliseconds. */
const maxReconnectDelayMs = 2000;

/**
 * An `ArtifactStore` on a Redis server, through `@keyv/redis` (an optional peer dependency),
 * that processes on any number of machines share. Catalogs of named records (and so the run
 * index of `@rlm/trace`) are changed by one Lua script each: concurrent writers never lose a
 * name. Connects before it resolves: a refused port, a database the server does not have, TLS
 * to a plain server, wrong credentials or no answer within `connectTimeoutMs` reject with
 * `ArtifactStoreError` naming the URL (password hidden) and the cause. Once connected, a lost
 * connection is retried in the background and commands fail at once until it is back (nothing
 * waits on a dead server): those writes reject with `ArtifactStoreError`.
 */
export async function createRedisArtifactStore(
  settings: RedisArtifactStoreSettings,
): Promise<ArtifactStore> {
  const namespace = settings.namespace ?? 'rlm';
  const connectTimeoutMs = settings.connectTimeoutMs ?? 10_000;
  const { ttlMs } = settings;
  for (const [name, value] of [
    ['connectTimeoutMs', connectTimeoutMs],
    ['ttlMs', ttlMs],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
      throw new RangeError(`@rlm/artifacts: ${name} must be a positive integer, got ${value}`);
    }
  }
  const shown = redactPassword(settings.url);
  let driver: typeof import('@keyv/redis');
  try {
    driver = await import('@keyv/redis');
  } catch (error) {
    throw new ArtifactStoreError(
      '@rlm/artifacts: createRedisArtifactStore needs the package @keyv/redis; install it (npm i @keyv/redis)',
      { cause: error },
    );
  }
  let connected = false;
  const client = driver.createClient({
    url: settings.url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: connectTimeoutMs,
      // Before the first connection, a failure is final: it is reported, not retried.
      reconnectStrategy: (retries: number, cause: Error) =>
        connected ? Math.min(2 ** retries * 100, maxReconnectDelayMs) : cause,
    },
  });
  // Errors reach the commands that fail; an unheard 'error' event would end the process.
  client.on('error', () => {});
  client.on('ready', () => {
    connected = true;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${connectTimeoutMs / 1000} s`)),
          connectTimeoutMs,
        );
      }),
    ]);
  } catch (error) {
    // A client that never connected may count as closed already.
    if (client.isOpen) client.destroy();
    const reason = error instanceof Error ? error.message : String(error);
    const tls = /^rediss:/i.test(settings.url)
      ? '; the URL asks for TLS (rediss://): if the server does not speak TLS, use redis://'
      : '';
    throw new ArtifactStoreError(
      `@rlm/artifacts: cannot connect to the Redis store at ${shown}: ${reason}${tls}`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
  const adapter = new driver.default(client, { throwOnConnectError: true, throwOnErrors: true });
  adapter.namespace = namespace;
  const keyv = new Keyv(adapter, { namespace, useKeyPrefix: false, throwOnErrors: true });
  return createKeyvArtifactStore(
    {
      keyv,
      ...(settings.scope === undefined ? {} : { scope: settings.scope }),
      ...(settings.chunkChars === undefined ? {} : { chunkChars: settings.chunkChars }),
    },
    {
      ...(ttlMs === undefined ? {} : { ttlMs }),
      catalogs: (index) =>
        new RedisCatalogRows({
          client: client as unknown as RedisCatalogCommands,
          prefix: `${namespace}:catalog:`,
          index,
          ...(ttlMs === undefined ? {} : { ttlMs }),
        }),
    },
  );
}

/** `url` with its password, if any, replaced by `***`, for messages. */
function redactPassword(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*:)[^@/]*@/i, '$1***@');
}
