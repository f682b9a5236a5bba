import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import type { ArtifactStore } from '@rlm/core';
import type { ConformanceSuiteSettings } from '@rlm/core/testing';
import type { ExpectStatic, TestAPI } from 'vitest';

/** What the writer processes of {@link runCatalogWritersConformance} open. */
export interface CatalogWritersSubject {
  /**
   * A module (file URL or absolute path) that plain `node` can import, exporting
   * `openStore(location: string): Promise<ArtifactStore>`. Every writer process, and the test
   * itself, opens the store through it.
   */
  readonly module: string;
  /** Where the store is (a file path, a Redis URL, ...), as `openStore` takes it; a fresh, empty store. */
  readonly location: string;
}

/**
 * Settings of {@link runCatalogWritersConformance}, in the shape of every conformance suite
 * (`{ name, create, api }`): `create` must return a fresh, empty store's subject each call.
 */
export type CatalogWritersConformanceOptions = ConformanceSuiteSettings<
  () => CatalogWritersSubject | Promise<CatalogWritersSubject>,
  { readonly test: TestAPI; readonly expect: ExpectStatic }
> & {
  /** Writer processes at once. Default 8. */
  readonly processes?: number;
  /** Records each writer puts. Default 25. */
  readonly recordsPerProcess?: number;
};

/** A writer process: waits for the start time, puts its records, prints `done`. */
const writerScript = `
const [module, location, writer, count, startAt] = process.argv.slice(1);
const { openStore } = await import(module);
const store = await openStore(location);
const scoped = store.scoped('catalog-writers');
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
for (let index = 0; index < Number(count); index += 1) {
  await scoped.put('writer-' + writer + '-record-' + index, {
    type: 'data',
    value: { writer: Number(writer), index },
    description: 'record ' + index + ' of writer ' + writer,
  });
  if (index % 5 === 0) {
    await scoped.put('shared', { type: 'data', value: 'the same', description: 'every writer puts it' });
  }
}
await store.close();
console.log('done');
`;

/**
 * Named-record catalogs under concurrent writers in separate processes, as vitest tests: many
 * processes put records into one scope of one store at once, and no name is lost from the
 * catalog (which is also how `@rlm/trace` indexes runs), none is listed twice, and every listed
 * record loads. For stores that promise atomic catalogs across processes (SQLite, Redis).
 */
export function runCatalogWritersConformance(options: CatalogWritersConformanceOptions): void {
  const { name: subject, create, api } = options;
  const { test, expect } = api;
  const processes = options.processes ?? 8;
  const count = options.recordsPerProcess ?? 25;

  test(`catalog writers conformance (${subject}): ${processes} processes putting ${count} records each into one scope lose no name`, {
    timeout: 120_000,
  }, async () => {
    const { module, location } = await create();
    const moduleUrl = /^[a-z][\w+.-]*:/i.test(module) ? module : pathToFileURL(module).href;
    // Every writer starts putting at once, whenever its process got ready.
    const startAt = Date.now() + 500 + processes * 100;
    const outputs = await Promise.all(
      Array.from({ length: processes }, (_, writer) =>
        runWriter([moduleUrl, location, String(writer), String(count), String(startAt)]),
      ),
    );
    for (const output of outputs) expect(output).toMatchObject({ code: 0, stdout: 'done\n' });
    const { openStore } = (await import(moduleUrl)) as {
      openStore: (location: string) => Promise<ArtifactStore>;
    };
    const store = await openStore(location);
    try {
      const scoped = store.scoped('catalog-writers');
      const names = await scoped.names();
      const expected = Array.from({ length: processes }, (_, writer) =>
        Array.from({ length: count }, (_, index) => `writer-${writer}-record-${index}`),
      ).flat();
      expect(names.length).toBe(expected.length + 1);
      expect(new Set(names)).toEqual(new Set([...expected, 'shared']));
      expect((await scoped.catalog()).map((entry) => entry.name)).toEqual(names);
      // Each writer's records are listed in the order it put them.
      for (let writer = 0; writer < processes; writer += 1) {
        const own = names.filter((name) => name.startsWith(`writer-${writer}-`));
        expect(own).toEqual(expected.slice(writer * count, (writer + 1) * count));
      }
      const last = `writer-${processes - 1}-record-${count - 1}`;
      expect((await scoped.get(last))?.value).toEqual({ writer: processes - 1, index: count - 1 });
      expect(await store.names()).toEqual([]);
    } finally {
      await store.close();
    }
  });
}

function runWriter(
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', writerScript, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
