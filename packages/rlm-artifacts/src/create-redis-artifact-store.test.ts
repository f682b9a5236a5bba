import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient, createKeyv } from '@keyv/redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createArtifactStore } from './create-artifact-store.js';
import { createRedisArtifactStore } from './create-redis-artifact-store.js';
import { bundlePackage, childCacheDirectory } from './test-support/bundle-package.js';
import { runArtifactStoreConformance } from './testing/run-artifact-store-conformance.js';
import { runCatalogWritersConformance } from './testing/run-catalog-writers-conformance.js';
import { runRunLeaseConformance } from './testing/run-run-lease-conformance.js';
import { freePort, type RedisServer, startRedisServer } from './testing/start-redis-server.js';

/** A real `redis-server` on a free loopback port; each store gets a namespace of its own. */
let server: RedisServer;
let namespaces = 0;

beforeAll(async () => {
  server = await startRedisServer();
});

afterAll(async () => {
  await server?.stop();
});

function freshNamespace(): string {
  namespaces += 1;
  return `rlm-test-${namespaces}`;
}

/** A plain client on the test server, to look at keys as Redis holds them. */
function plainClient() {
  return createClient({ url: server.url });
}

async function inspect<T>(use: (client: ReturnType<typeof plainClient>) => Promise<T>) {
  const client = plainClient();
  await client.connect();
  try {
    return await use(client);
  } finally {
    client.destroy();
  }
}

runArtifactStoreConformance({
  name: 'redis',
  create: () => createRedisArtifactStore({ url: server.url, namespace: freshNamespace() }),
  api: { test, expect },
});
runRunLeaseConformance({
  name: 'redis',
  create: () => createRedisArtifactStore({ url: server.url, namespace: freshNamespace() }),
  api: { test, expect },
});
runCatalogWritersConformance({
  name: 'redis',
  create: async () => {
    const bundle = await bundlePackage();
    const module = join(childCacheDirectory, 'open-redis-store.mjs');
    await writeFile(
      module,
      `const { createRedisArtifactStore } = await import(${JSON.stringify(bundle)});
export const openStore = (location) => createRedisArtifactStore(JSON.parse(location));`,
    );
    return { module, location: JSON.stringify({ url: server.url, namespace: freshNamespace() }) };
  },
  api: { test, expect },
});

test('with a time to live, every key the store writes expires: blobs, records, catalogs, checkpoints', async () => {
  const namespace = freshNamespace();
  const ttlMs = 3_600_000;
  await using store = await createRedisArtifactStore({ url: server.url, namespace, ttlMs });
  await store.store('a blob '.repeat(1000));
  const run = store.scoped('run');
  await run.put('big', { type: 'data', value: 'x'.repeat(10_000), description: 'big' });
  await run.put('small', { type: 'data', value: 1, description: 'small' });
  await store.saveCheckpoint({
    runKey: 'run',
    callId: 'root',
    iteration: 1,
    transcript: [{ role: 'user', content: 'q' }],
    variableNames: ['n'],
    variables: { n: 1 },
    budget: {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      modelCalls: 1,
      elapsedMs: 0,
    },
  });
  const ttls = await inspect(async (client) => {
    const keys = await client.keys(`${namespace}:*`);
    return Promise.all(keys.map(async (key) => [key, await client.pTTL(key)] as const));
  });
  expect(ttls.some(([key]) => key.startsWith(`${namespace}:catalog:`))).toBe(true);
  expect(ttls.some(([key]) => key.includes('::record:'))).toBe(true);
  expect(ttls.some(([key]) => key.includes('::chunk:'))).toBe(true);
  expect(ttls.some(([key]) => key.includes('::checkpoint'))).toBe(true);
  for (const [key, ttl] of ttls) {
    expect({ key, expires: ttl > 0 && ttl <= ttlMs }).toEqual({ key, expires: true });
  }
});

test('a blob stored again past half its time to live is written again, so it outlives what refers to it', async () => {
  const namespace = freshNamespace();
  const ttlMs = 2000;
  await using store = await createRedisArtifactStore({ url: server.url, namespace, ttlMs });
  const text = 'kept alive '.repeat(100);
  const ref = await store.store(text);
  const metaKey = `${namespace}::blob:${ref.id}`;
  const uploadOf = () =>
    inspect(async (client) => JSON.parse((await client.get(metaKey)) ?? 'null')?.value?.upload);
  const first = await uploadOf();
  // Stored again at once: the same blob, not written again.
  await store.store(text);
  expect(await uploadOf()).toBe(first);
  // Wait (however long it takes) until the blob is past half its time to live.
  while ((await inspect((client) => client.pTTL(metaKey))) > ttlMs / 2 - 100) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(await store.store(text)).toMatchObject({ id: ref.id });
  const second = await uploadOf();
  expect(second).not.toBe(first);
  expect(await inspect((client) => client.pTTL(metaKey))).toBeGreaterThan(ttlMs / 2);
  expect(await store.load(ref.id)).toBe(text);
});

test('an unreachable server rejects at once with the URL and the cause: refused port, wrong database, TLS to a plain server', async () => {
  const closed = `redis://127.0.0.1:${await freePort()}`;
  await expect(createRedisArtifactStore({ url: closed })).rejects.toMatchObject({
    name: 'ArtifactStoreError',
    message: expect.stringMatching(
      new RegExp(`^@rlm/artifacts: cannot connect to the Redis store at ${closed}: .*ECONNREFUSED`),
    ),
  });
  await expect(createRedisArtifactStore({ url: `${server.url}/99` })).rejects.toMatchObject({
    name: 'ArtifactStoreError',
    message: expect.stringContaining(`at ${server.url}/99: ERR DB index is out of range`),
  });
  const tls = server.url.replace('redis:', 'rediss:');
  await expect(
    createRedisArtifactStore({ url: tls, connectTimeoutMs: 1000 }),
  ).rejects.toMatchObject({
    name: 'ArtifactStoreError',
    message: expect.stringContaining(
      `at ${tls}: no answer within 1 s; the URL asks for TLS (rediss://): if the server does not speak TLS, use redis://`,
    ),
  });
  const secret = `redis://user:hunter2@127.0.0.1:${await freePort()}`;
  const hidden = await createRedisArtifactStore({ url: secret }).catch((error: Error) => error);
  expect((hidden as Error).message).toContain('redis://user:***@127.0.0.1:');
  expect((hidden as Error).message).not.toContain('hunter2');
});

test('a server that goes away: writes reject with ArtifactStoreError instead of waiting; close still resolves', async () => {
  const lonely = await startRedisServer();
  const store = await createRedisArtifactStore({ url: lonely.url });
  await store.store('before');
  await lonely.stop();
  await expect(store.store('after')).rejects.toMatchObject({ name: 'ArtifactStoreError' });
  await expect(
    store.put('name', { type: 'data', value: 1, description: 'd' }),
  ).rejects.toMatchObject({ name: 'ArtifactStoreError' });
  await store.close();
});

test('a catalog written through plain Keyv (before catalog rows) is still listed, and new names follow it', async () => {
  const namespace = freshNamespace();
  const old = createArtifactStore({
    keyv: createKeyv(server.url, { namespace, throwOnErrors: true }),
    scope: 'old',
  });
  await old.put('first', { type: 'data', value: 1, description: 'first' });
  await old.put('second', { type: 'data', value: 2, description: 'second' });
  await old.close();
  await using store = await createRedisArtifactStore({ url: server.url, namespace, scope: 'old' });
  await store.put('third', { type: 'data', value: 3, description: 'third' });
  await store.put('first', { type: 'data', value: 1, description: 'first' });
  expect(await store.names()).toEqual(['first', 'second', 'third']);
  expect((await store.get('second'))?.value).toBe(2);
});
