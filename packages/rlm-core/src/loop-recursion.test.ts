import { describe, expect, test } from 'vitest';
import { createRLM } from './create-rlm.js';
import { lastMessageText, queryOf, repl } from './loop-test-helpers.js';
import { collectEvents, createScriptedModel, createScriptedSandbox } from './testing/index.js';

// sub_rlm, llm_query and llm_query_batched through createRLM only.

describe('sub_rlm', () => {
  test('starts a full child RLM with its own sandbox and context; at maxDepth it is one plain call', async () => {
    const llm = createScriptedModel([], {
      fallback: (request) => {
        const query = queryOf(request);
        const executed = lastMessageText(request).includes('REPL output');
        if (query.includes('Query: root')) return executed ? 'FINAL_VAR(answer)' : repl('root');
        if (query.includes('Query: child')) return executed ? 'FINAL_VAR(seen)' : repl('child');
        throw new Error(`unexpected request: ${query}`);
      },
    });
    const subLlm = createScriptedModel([
      (request) => {
        expect(lastMessageText(request)).toBe('grandchild\n\nContext:\ngc context');
        return 'plain answer';
      },
    ]);
    const sandbox = createScriptedSandbox({
      root: async ({ host, variables }) => {
        variables.set('secret', 'parent only');
        variables.set('answer', await host.sub_rlm?.('child', 'child context'));
      },
      child: async ({ host, variables }) => {
        const grandchild = await host.sub_rlm?.('grandchild', 'gc context');
        const seen = [typeof variables.get('secret'), variables.get('context'), grandchild];
        variables.set('seen', seen.join('|'));
      },
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox, limits: { maxDepth: 2 } });
    const { events } = await collectEvents(rlm.queryStream('root', 'root context'));
    const final = events.at(-1);
    expect(final).toMatchObject({
      type: 'final',
      answer: 'undefined|child context|plain answer',
      depthReached: 1,
    });
    expect(sandbox.sandboxes).toHaveLength(2);
    expect(sandbox.sandboxes.every((each) => each.disposed)).toBe(true);
    const starts = events.filter((event) => event.type === 'call-start');
    expect(starts.map((event) => [event.depth, event.query])).toEqual([
      [0, 'root'],
      [1, 'child'],
    ]);
    expect(starts[1]).toMatchObject({ parentCallId: starts[0]?.callId });
    if (final?.type !== 'final') throw new Error('no final event');
    expect(final.usage.modelCalls).toBe(5);
  });

  test('with maxDepth 1 the root has no child RLM: sub_rlm is a plain call to the sub model', async () => {
    const llm = createScriptedModel([repl('ask'), 'FINAL(done)']);
    const subLlm = createScriptedModel(['plain']);
    const sandbox = createScriptedSandbox({
      ask: async ({ host, print }) => print(await host.sub_rlm?.('question')),
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox, limits: { maxDepth: 1 } });
    const result = await rlm.query('q', 'c');
    expect(result.depthReached).toBe(0);
    expect(sandbox.sandboxes).toHaveLength(1);
    expect(lastMessageText(subLlm.requests[0]!)).toBe('question');
    expect(lastMessageText(llm.requests[1]!)).toContain('plain');
  });

  test("a child's failure reaches the parent's code as an error it can catch", async () => {
    const llm = createScriptedModel([], {
      fallback: (request) => {
        const query = queryOf(request);
        if (query.includes('Query: child')) return { error: new Error('child model down') };
        return lastMessageText(request).includes('REPL output') ? 'FINAL(recovered)' : repl('ask');
      },
    });
    const caught: string[] = [];
    const sandbox = createScriptedSandbox({
      ask: async ({ host }) => {
        await host.sub_rlm?.('child', 'x').catch((error: Error) => caught.push(error.message));
      },
    });
    await using rlm = createRLM({ model: llm, sandbox });
    expect((await rlm.query('root', 'c')).answer).toBe('recovered');
    expect(caught).toEqual(['child model down']);
    expect(sandbox.sandboxes[1]?.disposed).toBe(true);
  });
});

describe('llm_query and llm_query_batched', () => {
  test('go to the sub model, answer in order and run concurrently under the shared gate', async () => {
    let inFlight = 0;
    let peak = 0;
    const scripted = createScriptedModel([], {
      fallback: (request) => ({ text: `answer to ${lastMessageText(request)}`, delayMs: 5 }),
    });
    const subLlm = {
      ...scripted,
      async generate(...args: Parameters<typeof scripted.generate>) {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        try {
          return await scripted.generate(...args);
        } finally {
          inFlight -= 1;
        }
      },
    };
    const llm = createScriptedModel([repl('fan out')]);
    const sandbox = createScriptedSandbox({
      'fan out': async ({ host }) => {
        const single = await Promise.all(
          Array.from({ length: 6 }, (_, index) => host.llm_query?.(`q${index}`)),
        );
        const batched = (await host.llm_query_batched?.(['a', 'b', 'c'])) as string[];
        await host.SUBMIT?.([...single, ...batched]);
      },
    });
    await using rlm = createRLM({
      model: llm,
      subModel: subLlm,
      sandbox,
      limits: { maxConcurrency: 4 },
    });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toEqual([
      ...Array.from({ length: 6 }, (_, index) => `answer to q${index}`),
      'answer to a',
      'answer to b',
      'answer to c',
    ]);
    expect(peak).toBe(4);
    expect(result.usage.modelCalls).toBe(10);
  });

  test('bad arguments reject into model code with a message saying what is wrong', async () => {
    const llm = createScriptedModel([repl('bad'), 'FINAL(ok)']);
    const messages: string[] = [];
    const sandbox = createScriptedSandbox({
      bad: async ({ host }) => {
        for (const call of [
          () => host.llm_query?.('   '),
          () => host.llm_query_batched?.('not a list'),
          () => host.sub_rlm?.(''),
        ]) {
          await call()?.catch((error: Error) => messages.push(error.message));
        }
      },
    });
    await using rlm = createRLM({ model: llm, sandbox });
    expect((await rlm.query('q', 'c')).answer).toBe('ok');
    expect(messages).toHaveLength(3);
    expect(messages[0]).toMatch(/llm_query\(prompt\)/);
    expect(messages[1]).toMatch(/llm_query_batched\(prompts\)/);
    expect(messages[2]).toMatch(/sub_rlm\(query, context\) needs a non-empty query string/);
  });

  test('a host call the code did not await is cancelled when its block ends', async () => {
    const subLlm = createScriptedModel([{ text: 'late', delayMs: 60_000 }]);
    const llm = createScriptedModel([repl('forget'), 'FINAL(ok)']);
    let forgotten: Promise<unknown> | undefined;
    const sandbox = createScriptedSandbox({
      forget: ({ host }) => {
        forgotten = host.llm_query?.('never awaited')?.catch((error: Error) => error.message);
      },
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'ok' });
    expect(await forgotten).toMatch(/cancelled: the code block that started it ended first/);
  });
});
