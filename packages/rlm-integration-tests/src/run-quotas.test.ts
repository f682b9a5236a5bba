import { createMemoryArtifactStore } from '@rlm/artifacts';
import { createRLM, type RlmEvent, type Sandbox, type SandboxFactory } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

async function collect(stream: AsyncIterable<RlmEvent>): Promise<RlmEvent[]> {
  const events: RlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('artifact quotas', () => {
  test('store() past artifacts.quotas.artifactBytes rejects naming the setting and the flag; the run goes on', async () => {
    const artifacts = createMemoryArtifactStore();
    const llm = createScriptedModel([
      repl(
        [
          'await store("a", "x".repeat(600));',
          'let refused; try { await store("b", "y".repeat(600)); } catch (error) { refused = error.message; }',
          'await store("c", "small");',
          'SUBMIT(refused);',
        ].join('\n'),
      ),
    ]);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      artifacts,
      quotas: { artifactBytes: 1_000 },
    });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe(
      "store(name, value): storing 602 more bytes would pass the run's quota of 1000 bytes (602 used; artifacts.quotas.artifactBytes; CLI --max-artifact-bytes)",
    );
    const scoped = artifacts.scoped(result.runKey!);
    expect(await scoped.get('b')).toBeUndefined();
    expect((await scoped.get('c'))?.value).toBe('small');
  });

  test('store() past artifacts.quotas.artifactCount rejects; host tool outputs count too', async () => {
    const artifacts = createMemoryArtifactStore();
    const llm = createScriptedModel([
      repl(
        [
          'await store("a", 1);',
          'await echo({ text: "t" }, { outputs: [{ name: "out" }] });',
          'const refused = [];',
          'try { await store("b", 2); } catch (error) { refused.push(error.message); }',
          'try { await echo({ text: "u" }, { outputs: [{ name: "out2" }] }); } catch (error) { refused.push(error.message); }',
          'SUBMIT(refused);',
        ].join('\n'),
      ),
    ]);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      artifacts,
      tools: [
        {
          name: 'echo',
          description: 'Returns its input.',
          inputSchema: { type: 'object' },
          execute: (input) => input,
        },
      ],
      quotas: { artifactCount: 2 },
    });
    const answer = (await rlm.query('q', 'c')).answer as string[];
    expect(answer).toHaveLength(2);
    expect(answer[0]).toMatch(
      /^store\(name, value\): the run has stored 2 artifacts, the most allowed \(artifacts.quotas.artifactCount is 2; CLI --max-artifacts\)/,
    );
    expect(answer[1]).toMatch(/^echo\(input, \{ outputs \}\): the run has stored 2 artifacts/);
  });
});

/** Wraps the real factory to count the sandboxes alive at once. */
function countingFactory(): { factory: SandboxFactory; peak: () => number; created: () => number } {
  let open = 0;
  let peak = 0;
  let created = 0;
  const factory: SandboxFactory = async (options) => {
    open += 1;
    created += 1;
    peak = Math.max(peak, open);
    let sandbox: Sandbox;
    try {
      sandbox = await sandboxFactory(options);
    } catch (error) {
      open -= 1;
      throw error;
    }
    let disposed = false;
    const dispose = async () => {
      try {
        await sandbox.dispose();
      } finally {
        if (!disposed) {
          disposed = true;
          open -= 1;
        }
      }
    };
    return {
      execute: (code, executeOptions) => sandbox.execute(code, executeOptions),
      listVariables: () => sandbox.listVariables(),
      getVariable: (name) => sandbox.getVariable(name),
      setVariables: (values, setOptions) => sandbox.setVariables(values, setOptions),
      dispose,
      [Symbol.asyncDispose]: dispose,
    };
  };
  return { factory, peak: () => peak, created: () => created };
}

describe('child sandboxes', () => {
  test('100 concurrent sub_rlm calls never hold more than maxConcurrentChildren sandboxes, and all finish', async () => {
    const counting = countingFactory();
    const llm = createScriptedModel([], {
      fallback: (request) =>
        JSON.stringify(request.messages[0]).includes('root question')
          ? repl(
              'const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => sub_rlm("child " + i, "ctx")));\nSUBMIT(answers.filter((answer) => answer === "done").length);',
            )
          : 'FINAL(done)',
    });
    await using rlm = createRLM({
      model: llm,
      sandbox: counting.factory,
      limits: { maxConcurrentChildren: 4 },
      persistent: false,
    });
    const result = await rlm.query('root question', 'c');
    expect(result.answer).toBe(100);
    expect(counting.created()).toBe(101);
    // The root's own sandbox plus at most four children.
    expect(counting.peak()).toBeLessThanOrEqual(5);
    expect(counting.peak()).toBeGreaterThanOrEqual(3);
  }, 240_000);
});

describe('host calls a block did not await', () => {
  test('are cancelled when the block ends: 300 un-awaited prompts make only a few model calls', async () => {
    const subLlm = createScriptedModel([], { fallback: () => ({ text: 'ok', delayMs: 200 }) });
    const llm = createScriptedModel([
      repl('llm_query_batched(Array.from({ length: 300 }, (_, i) => "p" + i)).catch(() => {});'),
      'FINAL(done)',
    ]);
    await using rlm = createRLM({
      model: llm,
      subModel: subLlm,
      sandbox: sandboxFactory,
      limits: { maxConcurrency: 2 },
    });
    const events = await collect(rlm.queryStream('q', 'c'));
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'done' });
    const result = events.find(
      (event) => event.type === 'bridge-result' && event.name === 'llm_query_batched',
    );
    expect(result).toMatchObject({
      ok: false,
      error:
        'llm_query_batched was cancelled: the code block that started it ended first; await host calls inside the block',
    });
    // At most the two calls that held a model slot when the block ended were started.
    expect(subLlm.requests.length).toBeLessThanOrEqual(2);
  });

  test('an un-awaited sub_rlm child is failed and its sandbox released when the block ends', async () => {
    const counting = countingFactory();
    const llm = createScriptedModel([], {
      fallback: (request) => {
        const first = JSON.stringify(request.messages[0]);
        if (first.includes('child question')) return { text: 'FINAL(late)', delayMs: 60_000 };
        return request.messages.length === 1
          ? repl('sub_rlm("child question", "ctx").catch(() => {});')
          : 'FINAL(done)';
      },
    });
    await using rlm = createRLM({ model: llm, sandbox: counting.factory, persistent: false });
    const events = await collect(rlm.queryStream('root question', 'c'));
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'done' });
    const childError = events.find((event) => event.type === 'call-error' && event.depth === 1);
    expect(childError).toMatchObject({ errorName: 'AbortedError' });
  }, 60_000);
});
