import { deserialize } from 'node:v8';
import {
  type ArtifactStore,
  BudgetExhaustedError,
  createRLM,
  type GenerateRequest,
  hashContext,
  runKey,
} from '@rlm/core';
import { collectEvents, createScriptedModel, createScriptedSandbox } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { createMemoryArtifactStore } from './create-memory-artifact-store.js';

// The loop's artifact features (store / load / list_artifacts, the catalog, checkpoints, resume,
// large answers) through createRLM with the scripted model and sandbox and a memory store: fast,
// and independent of how the loop is built inside.

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

/** A store whose scoped views count their catalog reads in `reads`. */
function countingCatalogReads(store: ArtifactStore): { store: ArtifactStore; reads: string[] } {
  const reads: string[] = [];
  const counting = (view: ArtifactStore): ArtifactStore =>
    new Proxy(view, {
      get(target, property) {
        if (property === 'catalog') {
          return () => {
            reads.push(target.scope);
            return target.catalog();
          };
        }
        if (property === 'scoped') return (scope: string) => counting(target.scoped(scope));
        const value = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return { store: counting(store), reads };
}

function lastText(request: GenerateRequest): string {
  const content = request.messages.at(-1)?.content ?? '';
  return typeof content === 'string'
    ? content
    : content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

describe('artifacts in the loop', () => {
  test('store, load and list_artifacts from code; the catalog is in the next prompt', async () => {
    const llm = createScriptedModel([
      repl('keep'),
      (request) => {
        expect(request.system).toContain('Available artifacts');
        expect(request.system).toContain('findings');
        return repl('read');
      },
    ]);
    const sandbox = createScriptedSandbox({
      keep: async ({ host }) => {
        await host.store?.('findings', { count: 3 });
      },
      read: async ({ host }) => {
        const listed = (await host.list_artifacts?.()) as { name: string }[];
        await host.SUBMIT?.({
          loaded: await host.load?.('findings'),
          listed: listed.map((entry) => entry.name),
        });
      },
    });
    const artifacts = createMemoryArtifactStore();
    await using rlm = createRLM({ model: llm, sandbox, artifacts });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toEqual({ loaded: { count: 3 }, listed: ['findings'] });
    expect(llm.requests[0]?.system).not.toContain('findings');
    expect((await artifacts.scoped(result.runKey!).get('findings'))?.value).toEqual({ count: 3 });
  });

  // A run stopped before its answer (here by its budget) is the one a checkpoint is for: each is
  // saved before the run fails. (A run that answers may drop the checkpoints it no longer needs.)
  test('a checkpoint after every executed step, with the variables as they were then', async () => {
    const llm = createScriptedModel([repl('one'), repl('two')]);
    const sandbox = createScriptedSandbox({
      one: { variables: { total: new Map([['step', 1]]) } },
      two: ({ variables }) => {
        variables.set('total', new Map([['step', 2]]));
      },
    });
    const artifacts = createMemoryArtifactStore();
    await using rlm = createRLM({ model: llm, sandbox, artifacts, budget: { maxModelCalls: 2 } });
    const { events, error } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(BudgetExhaustedError.isInstance(error)).toBe(true);
    expect(
      events.flatMap((event) => (event.type === 'checkpoint' ? [event.iteration] : [])),
    ).toEqual([1, 2]);
    const key = runKey('q', hashContext('c'));
    const [second, first] = await artifacts.listCheckpoints(key);
    const firstCheckpoint = await artifacts.loadCheckpoint(key, first!.id);
    expect(deserialize(firstCheckpoint.serializedVariables.total!)).toEqual(new Map([['step', 1]]));
    const secondCheckpoint = await artifacts.loadCheckpoint(key, second!.id);
    expect(deserialize(secondCheckpoint.serializedVariables.total!)).toEqual(
      new Map([['step', 2]]),
    );
    expect(firstCheckpoint.variableNames).not.toContain('context');
  });

  test('resume continues a failed run from its last checkpoint: transcript, iteration, variables', async () => {
    const artifacts = createMemoryArtifactStore();
    const sandbox = createScriptedSandbox({
      one: { variables: { partial: [1, 2] } },
      finish: async ({ host, variables }) => {
        await host.SUBMIT?.([...(variables.get('partial') as number[]), 3]);
      },
    });
    const crashing = createScriptedModel([repl('one'), { error: new Error('the process died') }]);
    await using first = createRLM({ model: crashing, sandbox, artifacts });
    await expect(first.query('q', 'c')).rejects.toThrow('the process died');

    const llm = createScriptedModel([
      (request) => {
        expect(JSON.stringify(request.messages)).toContain('one');
        return repl('finish');
      },
    ]);
    await using second = createRLM({ model: llm, sandbox, artifacts });
    const { events } = await collectEvents(second.queryStream('q', 'c', { resume: true }));
    expect(events.find((event) => event.type === 'resumed')).toMatchObject({
      iteration: 1,
      restored: ['partial'],
      lost: [],
    });
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: [1, 2, 3], iterations: 2 });
    expect(lastText(llm.requests[0]!)).toMatch(/resum/i);
  });

  test('a sandbox without snapshots is checkpointed through getVariable; what cannot be copied is lost, by name', async () => {
    const artifacts = createMemoryArtifactStore();
    const sandbox = createScriptedSandbox(
      {
        one: { variables: { data: { a: 1 }, helper: () => 1 } },
        finish: async ({ host, variables }) => {
          await host.SUBMIT?.([variables.get('data'), typeof variables.get('helper')]);
        },
      },
      { snapshots: false },
    );
    const crashing = createScriptedModel([repl('one'), { error: new Error('crash') }]);
    await using first = createRLM({ model: crashing, sandbox, artifacts });
    await expect(first.query('q', 'c')).rejects.toThrow('crash');
    await using second = createRLM({
      model: createScriptedModel([repl('finish')]),
      sandbox,
      artifacts,
    });
    const { events } = await collectEvents(second.queryStream('q', 'c', { resume: true }));
    expect(events.find((event) => event.type === 'resumed')).toMatchObject({
      restored: ['data'],
      lost: ['helper'],
    });
    expect(events.at(-1)).toMatchObject({ answer: [{ a: 1 }, 'undefined'] });
  });

  test('the catalog is read once while no step writes a record, and again after a write', async () => {
    const steps = ['one', 'two', 'three', 'four'].map((code) => repl(code));
    const llm = createScriptedModel([
      ...steps,
      repl('keep'),
      (request) => {
        expect(request.system).toContain('findings');
        return repl('done');
      },
    ]);
    const sandbox = createScriptedSandbox({
      one: { variables: { a: 1 } },
      two: { variables: { a: 2 } },
      three: 'x',
      four: 'y',
      keep: async ({ host }) => {
        await host.store?.('findings', { count: 3 });
      },
      done: async ({ host }) => {
        await host.SUBMIT?.('ok');
      },
    });
    const { store, reads } = countingCatalogReads(createMemoryArtifactStore());
    await using rlm = createRLM({ model: llm, sandbox, artifacts: store });
    await rlm.query('q', 'c');
    // Six model requests: the first read serves the five before the write, one more after it.
    expect(llm.requests).toHaveLength(6);
    expect(reads).toHaveLength(2);
  });

  test('records written by a host tool, a sub_rlm child and an unawaited store() reach the next prompt', async () => {
    const llm = createScriptedModel([
      repl('tool'),
      (request) => {
        expect(request.system).toContain('tool_counts');
        return repl('child');
      },
      (request) => {
        // The child's own steps: it stores, then answers.
        if (request.messages.some((message) => JSON.stringify(message).includes('sub-query')))
          return repl('child-store');
        throw new Error('unexpected request order');
      },
      repl('child-answer'),
      (request) => {
        expect(request.system).toContain('child_notes');
        return repl('unawaited');
      },
      repl('pause'),
      (request) => {
        expect(request.system).toContain('late_note');
        return repl('done');
      },
    ]);
    let stored: Promise<unknown> | undefined;
    const sandbox = createScriptedSandbox({
      tool: async ({ host }) => {
        await host.count_words?.({ text: 'a b' }, { outputs: [{ name: 'tool_counts' }] });
      },
      child: async ({ host }) => {
        await host.sub_rlm?.('sub-query', 'sub-context');
      },
      'child-store': async ({ host }) => {
        await host.store?.('child_notes', 'from the child');
      },
      'child-answer': async ({ host }) => {
        await host.SUBMIT?.('child done');
      },
      unawaited: async ({ host }) => {
        stored = host.store?.('late_note', 'written after the block ended');
        // The next prompt may be built before this write ends; the one after must show it.
        stored?.catch(() => {});
      },
      pause: async () => {
        await stored;
      },
      done: async ({ host }) => {
        await host.SUBMIT?.('ok');
      },
    });
    const artifacts = createMemoryArtifactStore();
    await using rlm = createRLM({
      model: llm,
      sandbox,
      artifacts,
      tools: [
        {
          name: 'count_words',
          description: 'Counts words.',
          inputSchema: { type: 'object' },
          execute: async (input) => String((input as { text: string }).text).split(' ').length,
        },
      ],
    });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe('ok');
  });

  test('a persistent session resumes without reading the variables first: they are restored while the model is asked', async () => {
    const memory = createMemoryArtifactStore();
    const options: unknown[] = [];
    const recording = (view: ArtifactStore): ArtifactStore =>
      new Proxy(view, {
        get(target, property) {
          if (property === 'latestCheckpoint') {
            return (runKey: string, given?: unknown) => {
              options.push(given);
              return target.latestCheckpoint(runKey, given as never);
            };
          }
          if (property === 'scoped') return (scope: string) => recording(target.scoped(scope));
          const value = Reflect.get(target, property);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const artifacts = recording(memory);
    const large = 'word '.repeat(5_000);
    const sandbox = createScriptedSandbox({
      one: { variables: { large } },
      finish: async ({ host, variables }) => {
        await host.SUBMIT?.((variables.get('large') as string).length);
      },
    });
    const crashing = createScriptedModel([repl('one'), { error: new Error('the process died') }]);
    await using first = createRLM({ model: crashing, sandbox, artifacts, persistent: true });
    await expect(first.query('q', 'c')).rejects.toThrow('the process died');
    await using second = createRLM({
      model: createScriptedModel([repl('finish')]),
      sandbox,
      artifacts,
      persistent: true,
    });
    const result = await second.query('q', 'c', { resume: true });
    expect(result.answer).toBe(large.length);
    expect(options).toEqual([{ loadSerializedBytes: false }]);
  });

  test('a large root answer is also stored as a blob and the result names it', async () => {
    const answer = 'z'.repeat(5_000);
    const artifacts = createMemoryArtifactStore();
    const llm = createScriptedModel([repl('big')]);
    const sandbox = createScriptedSandbox({
      big: async ({ host }) => {
        await host.SUBMIT?.(answer);
      },
    });
    await using rlm = createRLM({ model: llm, sandbox, artifacts, largeAnswerChars: 1_000 });
    const result = await rlm.query('q', 'c');
    expect(result.artifact?.size).toBe(5_000);
    expect(await artifacts.load(result.artifact!.id)).toBe(answer);
  });
});
