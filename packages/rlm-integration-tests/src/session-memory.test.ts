import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMemoryArtifactStore, createSqliteArtifactStore } from '@rlm/artifacts';
import { type ArtifactStore, createRLM } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sandboxFactory as sandbox } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'rlm-session-memory-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const stores: [string, () => Promise<ArtifactStore>][] = [
  ['memory store', async () => createMemoryArtifactStore()],
  [
    'SQLite store',
    () => createSqliteArtifactStore({ path: path.join(directory, `${Date.now()}.sqlite`) }),
  ],
];

describe('a bounded persistent session', () => {
  test.each(stores)(
    'spill (%s): old contexts and history leave memory; load() and "@name" inputs get them back',
    async (_, open) => {
      await using artifacts = await open();
      const contexts = ['A', 'B', 'C'].map((letter) => letter.repeat(1_000));
      const llm = createScriptedModel([
        'FINAL(first)',
        'FINAL(second)',
        (request) => {
          const opening = JSON.stringify(request.messages[0]);
          expect(opening).toContain('session memory is bounded: context_0 is no longer in memory');
          expect(opening).toContain(
            '`history` holds the last 1 query before this one; the 1 earlier one is stored as history_0',
          );
          return repl(
            [
              'const placeholder = context_0;',
              'const back = await load("context_0");',
              'const old = await load("history_0");',
              'const names = (await list_artifacts()).map((entry) => entry.name);',
              'const measured = await measure({ text: "@context_0" });',
              'SUBMIT({ placeholder, back: back.slice(0, 3), backLength: back.length,',
              '  kept: context_1.slice(0, 3), current: context.slice(0, 3),',
              '  history: history.map((entry) => entry.query), old: old.query, names, measured });',
            ].join('\n'),
          );
        },
      ]);
      await using rlm = createRLM({
        model: llm,
        sandbox,
        artifacts,
        persistent: true,
        sessionMemory: { maxContexts: 2, maxHistoryEntries: 1 },
        tools: [
          {
            name: 'measure',
            description: 'Counts characters.',
            inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
            execute: (input) => (input as { text: string }).text.length,
          },
        ],
      });
      await rlm.query('q0', contexts[0]);
      await rlm.query('q1', contexts[1]);
      const result = await rlm.query('q2', contexts[2]);
      expect(result.answer).toEqual({
        placeholder: '[context_0 is no longer in memory: get it with await load("context_0")]',
        back: 'AAA',
        backLength: 1_000,
        kept: 'BBB',
        current: 'CCC',
        // The last earlier query kept, then the one running.
        history: ['q1', 'q2'],
        old: 'q0',
        names: expect.arrayContaining(['context_0', 'history_0']),
        // A host tool's "@context_0" input reaches the spilled context too.
        measured: 1_000,
      });
    },
  );

  test("after reset() the earlier conversation's spilled records are out of reach", async () => {
    await using artifacts = createMemoryArtifactStore();
    const llm = createScriptedModel([
      'FINAL(one)',
      'FINAL(two)',
      repl(
        'let gone; try { await load("context_0"); } catch (error) { gone = error.message; }\nSUBMIT({ gone, history: history.map((entry) => entry.query) });',
      ),
    ]);
    await using rlm = createRLM({
      model: llm,
      sandbox,
      artifacts,
      persistent: true,
      sessionMemory: { maxContexts: 1 },
    });
    await rlm.query('q0', 'a private context of the first user');
    await rlm.query('q1', 'the second context');
    await rlm.reset();
    const result = await rlm.query('q2', 'a new conversation');
    expect(result.answer).toEqual({
      gone: expect.stringContaining('no artifact named "context_0"'),
      history: ['q2'],
    });
  });

  test('drop without a store: the placeholder and the prompt say the context is gone', async () => {
    const llm = createScriptedModel([
      'FINAL(first)',
      (request) => {
        expect(JSON.stringify(request.messages[0])).toContain(
          '- session memory is bounded: context_0 was dropped and is gone\\n',
        );
        return repl(
          'SUBMIT({ zero: context_0, history: history.map((entry) => entry.query), now: context });',
        );
      },
    ]);
    await using rlm = createRLM({
      model: llm,
      sandbox,
      persistent: true,
      sessionMemory: { maxContextChars: 10, maxHistoryEntries: 1, overflow: 'drop' },
    });
    await rlm.query('q0', 'first context, longer than ten characters');
    const result = await rlm.query('q1', 'second');
    expect(result.answer).toEqual({
      zero: "[context_0 was dropped from this session's memory (sessionMemory); it is gone]",
      history: ['q0', 'q1'],
      now: 'second',
    });
  });

  test('session.memory without persistent, and spill without a store, are refused at createRLM', () => {
    const llm = createScriptedModel([]);
    expect(() =>
      createRLM({ model: llm, sandbox, session: { memory: { maxContexts: 2 } } }),
    ).toThrow(
      'session.memory bounds a persistent session; set session.persistent: true or remove it',
    );
    expect(() =>
      createRLM({
        model: llm,
        sandbox,
        session: { persistent: true, memory: { overflow: 'spill' } },
      }),
    ).toThrow("session.memory.overflow 'spill' needs an artifact store");
  });
});
