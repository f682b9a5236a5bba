import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ArtifactStore, createRLM, hashContext, runKey } from '@rlm/core';
import { createScriptedModel, createScriptedSandbox } from '@rlm/core/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSqliteArtifactStore } from './create-sqlite-artifact-store.js';

// `artifacts.runNamespace` through createRLM on a SQLite file: the same query over the same
// context in two namespaces (an eval's two variants) neither resumes the other's checkpoint nor
// sees its artifacts, and without a namespace the runs of earlier versions still resume.

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'rlm-run-namespace-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
}, 60_000);

const sandbox = createScriptedSandbox({
  keep: async ({ host }) => {
    await host.store?.('notes', { found: 'needle' });
    return { variables: { partial: [1, 2] } };
  },
  report: async ({ host, variables }) => {
    const listed = (await host.list_artifacts?.()) as { name: string }[];
    const loaded = await Promise.resolve(host.load?.('notes')).catch(() => null);
    await host.SUBMIT?.({
      listed: listed.map((entry) => entry.name),
      loaded: loaded ?? null,
      partial: variables.get('partial') ?? null,
    });
  },
});

/** A run that stores an artifact and a variable, is checkpointed, then dies on its model. */
async function crashAfterOneStep(store: ArtifactStore, runNamespace?: string): Promise<void> {
  const model = createScriptedModel([repl('keep'), { error: new Error('the process died') }]);
  const rlm = createRLM({ model, sandbox, artifacts: { store, runNamespace } });
  await expect(rlm.query('q', 'c')).rejects.toThrow('the process died');
  // Waits for the run's last checkpoint write.
  await rlm.dispose();
}

/** Resumes the same query over the same context, and reports what the run found. */
async function resumeAndReport(store: ArtifactStore, runNamespace?: string) {
  const model = createScriptedModel([repl('report')]);
  await using rlm = createRLM({ model, sandbox, artifacts: { store, runNamespace } });
  return await rlm.query('q', 'c', { resume: true });
}

describe('artifacts.runNamespace on a SQLite store', () => {
  test("two namespaces see neither each other's checkpoints nor artifacts; each resumes its own", async () => {
    await using store = await createSqliteArtifactStore({ path: join(directory, 'two.sqlite') });
    await crashAfterOneStep(store, 'eval:nightly:variant-a');

    const other = await resumeAndReport(store, 'eval:nightly:variant-b');
    expect(other.resumedFrom).toBeUndefined();
    expect(other.answer).toEqual({ listed: [], loaded: null, partial: null });

    const own = await resumeAndReport(store, 'eval:nightly:variant-a');
    expect(own.resumedFrom).toBe(1);
    expect(own.answer).toEqual({ listed: ['notes'], loaded: { found: 'needle' }, partial: [1, 2] });

    expect(own.runKey).toBe(runKey('q', hashContext('c'), 'eval:nightly:variant-a'));
    expect(other.runKey).toBe(runKey('q', hashContext('c'), 'eval:nightly:variant-b'));
    expect(own.runKey).not.toBe(other.runKey);
    expect(await store.listCheckpoints(runKey('q', hashContext('c')))).toEqual([]);
  });

  test('without a namespace the key is unchanged: a store written before namespaces still resumes', async () => {
    const path = join(directory, 'earlier.sqlite');
    {
      await using store = await createSqliteArtifactStore({ path });
      await crashAfterOneStep(store);
    }
    await using reopened = await createSqliteArtifactStore({ path });
    // The key of earlier versions (see run-key.test.ts in @rlm/core), where its checkpoint is.
    const earlierKey = 'a3512e5f8ead5c4d4626c22df8c13991';
    expect(await reopened.listCheckpoints(earlierKey)).toHaveLength(1);

    const namespaced = await resumeAndReport(reopened, 'eval:a');
    expect(namespaced.resumedFrom).toBeUndefined();
    expect(namespaced.answer).toEqual({ listed: [], loaded: null, partial: null });

    const plain = await resumeAndReport(reopened);
    expect(plain.runKey).toBe(earlierKey);
    expect(plain.resumedFrom).toBe(1);
    expect(plain.answer).toEqual({
      listed: ['notes'],
      loaded: { found: 'needle' },
      partial: [1, 2],
    });
  });
});
