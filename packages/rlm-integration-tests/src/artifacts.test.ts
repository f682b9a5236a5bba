import { createMemoryArtifactStore } from '@rlm/artifacts';
import { createRLM, type HostTool, type RlmEvent } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

async function collect(stream: AsyncIterable<RlmEvent>): Promise<RlmEvent[]> {
  const events: RlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const wordCount: HostTool = {
  name: 'count_words',
  description: 'Counts the words of each text.',
  inputSchema: {
    type: 'object',
    properties: { texts: { type: 'array', items: { type: 'string' } } },
    required: ['texts'],
    additionalProperties: false,
  },
  execute: (input) => {
    const { texts } = input as { texts: string[] };
    return { counts: texts.map((text) => text.split(/\s+/).filter(Boolean).length) };
  },
};

describe('artifacts in the loop', () => {
  test('store, load and list_artifacts from model code; the catalog is in the prompt', async () => {
    const artifacts = createMemoryArtifactStore();
    const llm = createScriptedModel([
      repl(
        'await store("big", "x".repeat(100 * 1024 * 1024), { type: "text", description: "a 100 MB string" });\nconst back = await load("big");\nprint(back.length, (await list_artifacts()).map((a) => a.name).join(","));',
      ),
      (request) => {
        expect(request.system).toContain('Available artifacts');
        expect(request.system).toContain('big');
        expect(request.system).toContain('a 100 MB string');
        expect(JSON.stringify(request.messages.at(-1))).toContain('104857600 big');
        return 'FINAL(stored)';
      },
    ]);
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory, artifacts });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe('stored');
    const record = await artifacts.scoped(result.runKey!).get('big');
    expect((record!.value as string).length).toBe(100 * 1024 * 1024);
    // A generous bound: 100 MB crosses the sandbox boundary twice; a loaded machine is slow.
  }, 300_000);

  test('host tools: "@name" inputs resolve (nested), outputs become records, bad input is a clear error', async () => {
    const artifacts = createMemoryArtifactStore();
    const llm = createScriptedModel([
      repl(
        [
          'await store("docs", ["a b c", "d e"], { description: "two documents" });',
          'const first = await count_words({ texts: "@docs" }, { outputs: [{ name: "counts", type: "data", description: "word counts" }] });',
          'let bad; try { await count_words({ texts: 42 }); } catch (error) { bad = error.message; }',
          'let unknown; try { await count_words({ texts: "@nope" }); } catch (error) { unknown = error.message; }',
          'SUBMIT({ first, bad, unknown, saved: await load("counts") });',
        ].join('\n'),
      ),
    ]);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      artifacts,
      tools: [wordCount],
    });
    const result = await rlm.query('q', 'c');
    const answer = result.answer as Record<string, unknown>;
    expect(answer.first).toEqual({ counts: [3, 2] });
    expect(answer.saved).toEqual({ counts: [3, 2] });
    expect(answer.bad).toMatch(/^count_words: invalid input:\n#\/texts: /);
    expect(answer.unknown).toContain('nope');
    expect(llm.requests[0]!.system).toContain('count_words(input');
    const record = await artifacts.scoped(result.runKey!).get('counts');
    expect(record).toMatchObject({ type: 'data', description: 'word counts' });
    expect(record!.metadata).toMatchObject({ tool: 'count_words', inputReferences: ['docs'] });
  });

  test('a tool that throws reaches model code as a plain Error message', async () => {
    const failing: HostTool = {
      ...wordCount,
      name: 'fail_tool',
      execute: () => {
        const error = new Error('upstream said no') as Error & { secret: string };
        error.secret = 'host-object';
        throw error;
      },
    };
    const llm = createScriptedModel([
      repl(
        'try { await fail_tool({ texts: [] }); } catch (error) { SUBMIT([error.message, Object.keys(error).join(","), String(error.secret)]); }',
      ),
    ]);
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory, tools: [failing] });
    expect((await rlm.query('q', 'c')).answer).toEqual(['upstream said no', '', 'undefined']);
  });

  test('a large SUBMIT({variable}) answer is stored and the result carries its ref', async () => {
    const artifacts = createMemoryArtifactStore();
    const llm = createScriptedModel(
      [
        repl('const report = "line\\n".repeat(50000);'),
        { toolCalls: [{ id: 't1', name: 'SUBMIT', input: { variable: 'report' } }] },
      ],
      { supportsTools: true },
    );
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory, artifacts });
    const result = await rlm.query('q', 'c');
    expect(result.artifact?.id).toMatch(/^[0-9a-f]{12}$/);
    expect(await artifacts.load(result.artifact!.id)).toBe('line\n'.repeat(50_000));
  });

  test('a checkpoint after every step; resume continues after the last one, no step twice', async () => {
    const artifacts = createMemoryArtifactStore();
    const steps = [repl('const a = 1;\nconst twice = (x) => x * 2;'), repl('const b = a + 1;')];
    const crashing = createScriptedModel([...steps, { error: new Error('process crashed') }]);
    await using first = createRLM({ model: crashing, sandbox: sandboxFactory, artifacts });
    const firstEvents: RlmEvent[] = [];
    await expect(
      (async () => {
        for await (const event of first.queryStream('long job', 'ctx')) firstEvents.push(event);
      })(),
    ).rejects.toThrow('process crashed');
    expect(firstEvents.filter((event) => event.type === 'checkpoint')).toHaveLength(2);

    const resumed = createScriptedModel([
      (request) => {
        const transcript = JSON.stringify(request.messages);
        expect(transcript).toContain('const b = a + 1');
        expect(transcript).toContain('resumed after iteration 2');
        expect(transcript).toContain('Variables lost (they could not be saved): twice');
        return repl('SUBMIT(a + b);');
      },
    ]);
    await using second = createRLM({ model: resumed, sandbox: sandboxFactory, artifacts });
    const events = await collect(second.queryStream('long job', 'ctx', { resume: true }));
    expect(events.find((event) => event.type === 'resumed')).toMatchObject({
      iteration: 2,
      restored: ['a', 'b'],
      lost: ['twice'],
    });
    const final = events.find((event) => event.type === 'final');
    expect(final).toMatchObject({ answer: 3, iterations: 3 });
    expect(events.filter((event) => event.type === 'code')).toHaveLength(1);
    expect(resumed.requests).toHaveLength(1);
  });

  test('resume with no checkpoint starts fresh; a different context is a different run', async () => {
    const artifacts = createMemoryArtifactStore();
    const llm = createScriptedModel([repl('SUBMIT(context)'), repl('SUBMIT(context)')]);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      artifacts,
      persistent: false,
    });
    const one = await rlm.query('q', 'one', { resume: true });
    const two = await rlm.query('q', 'two', { resume: true });
    expect([one.answer, two.answer]).toEqual(['one', 'two']);
    expect(one.runKey).not.toBe(two.runKey);
    expect(one.resumedFrom).toBeUndefined();
  });
});
