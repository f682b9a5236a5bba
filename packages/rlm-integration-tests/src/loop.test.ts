import {
  AbortedError,
  BudgetExhaustedError,
  createRLM,
  NoFinalAnswerError,
  type RlmEvent,
} from '@rlm/core';
import { createScriptedModel, timeScaled } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

function lastUserText(request: {
  messages: readonly { role: string; content: unknown }[];
}): string {
  const message = request.messages.at(-1)!;
  if (typeof message.content === 'string') return message.content;
  return (message.content as { type: string; text?: string; content?: string }[])
    .map((part) => part.text ?? part.content ?? '')
    .join('\n');
}

describe('the RLM loop', () => {
  test('runs code over a context that never enters the prompt, then answers with FINAL', async () => {
    const context = `${'lorem ipsum '.repeat(5_000)}SECRET-NEEDLE-42 ${'dolor '.repeat(5_000)}`;
    const llm = createScriptedModel([
      repl('const at = context.indexOf("SECRET-NEEDLE");\nprint(context.slice(at, at + 16));'),
      (request) => {
        expect(lastUserText(request)).toContain('SECRET-NEEDLE-42');
        return 'Found it.\nFINAL(SECRET-NEEDLE-42)';
      },
    ]);
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const result = await rlm.query('What is the needle?', context);
    expect(result.answer).toBe('SECRET-NEEDLE-42');
    expect(result.iterations).toBe(2);
    expect(result.usage.modelCalls).toBe(2);
    for (const request of llm.requests) {
      // The preview shows the context's last 300 characters, never more of it.
      expect(JSON.stringify(request)).not.toContain('dolor '.repeat(60));
    }
    expect(lastUserText({ messages: llm.requests[0]!.messages })).toContain(
      `total length: ${context.length} characters`,
    );
  });

  test('FINAL_VAR in prose returns the variable value after the code in the same response ran', async () => {
    const llm = createScriptedModel([
      `${repl('const counts = { a: 1, b: [2, 3] };')}\nFINAL_VAR(counts)`,
    ]);
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const result = await rlm.query('count', 'abc');
    expect(result.answer).toEqual({ a: 1, b: [2, 3] });
  });

  test('FINAL inside a code fence or mid-sentence is not an answer', async () => {
    const llm = createScriptedModel([
      '```text\nFINAL(wrong)\n```\nI will write FINAL(x) once I know.',
      'FINAL(right)',
    ]);
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    expect((await rlm.query('q', 'c')).answer).toBe('right');
  });

  test('SUBMIT and FINAL_VAR called from code finish the call and skip later blocks', async () => {
    const llm = createScriptedModel([
      `${repl('const total = 6 * 7;\nSUBMIT(total);')}\n${repl('print("must not run")')}`,
    ]);
    const events: RlmEvent[] = [];
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    for await (const event of rlm.queryStream('q', 'c')) events.push(event);
    const final = events.find((event) => event.type === 'final');
    expect(final).toMatchObject({ answer: 42, source: 'submit-code' });
    expect(events.filter((event) => event.type === 'code')).toHaveLength(1);

    const second = createScriptedModel([
      repl('const report = "long report";\nFINAL_VAR("report");'),
    ]);
    await using other = createRLM({ model: second, sandbox: sandboxFactory });
    expect((await other.query('q', 'c')).answer).toBe('long report');
  });

  test('an execution error is fed back and the loop recovers', async () => {
    const llm = createScriptedModel([
      repl('undefinedFunction();'),
      (request) => {
        expect(lastUserText(request)).toMatch(/undefinedFunction/);
        return 'FINAL(recovered)';
      },
    ]);
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    expect((await rlm.query('q', 'c')).answer).toBe('recovered');
  });

  test('long output is truncated with its true length; a context dump is redacted', async () => {
    const context = 'x'.repeat(400_000);
    const llm = createScriptedModel([
      repl('print("y".repeat(50000))'),
      (request) => {
        expect(lastUserText(request)).toContain('the output was 50000 characters');
        return repl('print(context)');
      },
      (request) => {
        expect(lastUserText(request)).toContain(
          '[redacted: 400000 characters copied verbatim from context.slice(0, 400000);',
        );
        return 'FINAL(done)';
      },
    ]);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      limits: { maxOutputChars: 1_000 },
    });
    expect((await rlm.query('q', context)).answer).toBe('done');
  });

  test('out of iterations: one forced final prompt, then the answer', async () => {
    const llm = createScriptedModel([
      repl('const partial = "best so far";'),
      repl('print(1)'),
      (request) => {
        const prompt = lastUserText(request);
        expect(prompt).toContain('used all of your iterations');
        expect(prompt).toContain('partial');
        return 'FINAL_VAR(partial)';
      },
    ]);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      limits: { maxIterations: 2 },
    });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe('best so far');
    expect(llm.requests).toHaveLength(3);
  });

  test('no answer even after the forced prompt: NoFinalAnswerError with diagnostics', async () => {
    const llm = createScriptedModel([repl('print(1)'), 'I am still thinking about it.']);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      limits: { maxIterations: 1 },
    });
    const error = await rlm.query('q', 'c').catch((caught: unknown) => caught);
    expect(NoFinalAnswerError.isInstance(error)).toBe(true);
    const typed = error as NoFinalAnswerError;
    expect(typed.partialAnswer).toBe('I am still thinking about it.');
    expect(typed.diagnostics.iterations).toBe(1);
  });

  test('sub_rlm runs a full child RLM with its own sandbox; at maxDepth it is a plain call', async () => {
    const llm = createScriptedModel([], {
      fallback: (request) => {
        const first = lastUserText({ messages: request.messages.slice(0, 1) });
        const last = lastUserText(request);
        if (first.includes('Query: root')) {
          if (last.includes('REPL output')) return 'FINAL_VAR(answer)';
          return repl(
            'const secret = "parent-only";\nconst answer = await sub_rlm("child", "child context");',
          );
        }
        if (first.includes('Query: child')) {
          if (last.includes('REPL output')) return 'FINAL_VAR(seen)';
          return repl(
            'const seen = [typeof secret, context, await sub_rlm("grandchild", "gc")].join("|");',
          );
        }
        if (last.startsWith('grandchild')) return 'plain answer';
        throw new Error(`unexpected request: ${last}`);
      },
    });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory, limits: { maxDepth: 2 } });
    const result = await rlm.query('root', 'root context');
    expect(result.answer).toBe('undefined|child context|plain answer');
    expect(result.depthReached).toBe(1);
    expect(result.usage.modelCalls).toBe(5);
  });

  test('Promise.all over llm_query runs the calls concurrently', async () => {
    let inFlight = 0;
    let peak = 0;
    const sub = createScriptedModel([], {
      fallback: () => ({ text: 'ok', delayMs: 50 }),
    });
    const counting = {
      ...sub,
      async generate(...args: Parameters<typeof sub.generate>) {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        try {
          return await sub.generate(...args);
        } finally {
          inFlight -= 1;
        }
      },
    };
    const llm = createScriptedModel([
      repl(
        'const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => llm_query("q" + i)));\nconst batched = await llm_query_batched(["a", "b", "c"]);\nSUBMIT(answers.length + batched.length);',
      ),
    ]);
    await using rlm = createRLM({
      model: llm,
      subModel: counting,
      sandbox: sandboxFactory,
      limits: { maxConcurrency: 8 },
    });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe(13);
    // Eight calls were in flight at once: the gate's limit, so they really overlapped.
    expect(peak).toBe(8);
  });

  test('persistent mode keeps variables and adds context_n and history across queries', async () => {
    const llm = createScriptedModel([
      repl('const firstLength = context.length;\nSUBMIT(firstLength);'),
      (request) => {
        expect(lastUserText({ messages: request.messages.slice(0, 1) })).toContain(
          'earlier queries in this session: 1',
        );
        return repl('SUBMIT([firstLength, context_0, context_1, history[0].answer].join(","));');
      },
    ]);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      session: { persistent: true },
    });
    expect((await rlm.query('first', 'abc')).answer).toBe(3);
    expect((await rlm.query('second', 'de')).answer).toBe('3,abc,de,3');
  });

  test('in a session, a query cannot replace the intrinsics the next query uses', async () => {
    const llm = createScriptedModel([
      repl(
        [
          'const tries = [];',
          'for (const plant of [',
          '  () => { JSON = { stringify: () => SUBMIT("forged " + context) }; },',
          '  () => { globalThis.JSON = { stringify: () => "planted" }; },',
          '  () => Object.defineProperty(globalThis, "Math", { value: { max: () => "planted" } }),',
          ']) { try { plant(); tries.push("replaced"); } catch (error) { tries.push(error.name); } }',
          'SUBMIT(tries.join(","));',
        ].join('\n'),
      ),
      repl('SUBMIT(JSON.stringify({ secret: context.length, max: Math.max(1, 2) }));'),
    ]);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      session: { persistent: true },
    });
    expect((await rlm.query('first', 'a')).answer).toBe('TypeError,TypeError,TypeError');
    expect((await rlm.query('second', 'confidential')).answer).toBe('{"secret":12,"max":2}');
  });

  test('without persistent, queries on one instance run concurrently', async () => {
    const inner = createScriptedModel([], { fallback: () => repl('SUBMIT(context)') });
    let arrived = 0;
    let bothArrived!: () => void;
    const both = new Promise<void>((resolve) => {
      bothArrived = resolve;
    });
    const llm = {
      ...inner,
      async generate(...args: Parameters<typeof inner.generate>) {
        arrived += 1;
        if (arrived === 2) bothArrived();
        // Run one at a time, the first query would wait here for ever: fail instead.
        await Promise.race([
          both,
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error('the second query never started')), 30_000),
          ),
        ]);
        return inner.generate(...args);
      },
    };
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const answers = await Promise.all([rlm.query('one', 'alpha'), rlm.query('two', 'beta')]);
    expect(answers.map((result) => result.answer)).toEqual(['alpha', 'beta']);
  });

  test('reset() ends a session: the next query sees no earlier context, variable or history', async () => {
    const llm = createScriptedModel([
      repl('const kept = 1;\nSUBMIT("one");'),
      repl(
        'SUBMIT([typeof kept, typeof context_0, history.map((entry) => entry.query)].join("|"));',
      ),
      repl(
        'SUBMIT([typeof kept, typeof context_1, history.map((entry) => entry.query), context].join("|"));',
      ),
    ]);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      session: { persistent: true },
    });
    await rlm.query('first', 'a secret');
    // history: the earlier queries, then the one running.
    expect((await rlm.query('second', 'b')).answer).toBe('number|string|first,second');
    await rlm.reset();
    expect((await rlm.query('third', 'c')).answer).toBe('undefined|undefined|third|c');
  });

  test('by default every query starts fresh: no variables, contexts or planted globals of an earlier one', async () => {
    const llm = createScriptedModel([
      repl(
        'const kept = 1;\ntry { globalThis.JSON = { stringify: () => "planted" }; } catch {}\nSUBMIT("one");',
      ),
      repl(
        'SUBMIT([typeof kept, typeof context_0, history.map((entry) => entry.query), JSON.stringify({ a: 1 }), context].join("|"));',
      ),
    ]);
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    await rlm.query('first', "the first user's secret");
    // history holds only the query running now.
    expect((await rlm.query('second', 'b')).answer).toBe('undefined|undefined|second|{"a":1}|b');
  });

  test('the model call budget is shared by children and ends the run with a typed error', async () => {
    const llm = createScriptedModel([], {
      fallback: () => repl('const r = await llm_query("again");'),
    });
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      budget: { maxModelCalls: 3 },
    });
    const error = await rlm.query('q', 'c').catch((caught: unknown) => caught);
    expect(BudgetExhaustedError.isInstance(error)).toBe(true);
    expect((error as BudgetExhaustedError).budget).toBe('modelCalls');
  });

  test('aborting stops the run promptly with AbortedError', async () => {
    const llm = createScriptedModel([], { fallback: () => ({ text: 'slow', delayMs: 5_000 }) });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const { value: error, scaledMs } = await timeScaled(() =>
      rlm.query('q', 'c', { signal: abort.signal }).catch((caught: unknown) => caught),
    );
    expect(AbortedError.isInstance(error)).toBe(true);
    // Well before the model's 5 s, scaled by the machine's load.
    expect(scaledMs).toBeLessThan(1_000);
  });

  test('events: step start/complete with timing, code, execution and final', async () => {
    const llm = createScriptedModel([repl('print("hi")'), 'FINAL(bye)']);
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const types: string[] = [];
    for await (const event of rlm.queryStream('q', 'c')) {
      types.push(event.type);
      if (event.type === 'execution') expect(event.output).toBe('hi');
      if (event.type === 'step-complete') expect(event.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(types).toEqual(
      expect.arrayContaining([
        'call-start',
        'step-start',
        'code',
        'execution',
        'step-complete',
        'final',
      ]),
    );
    expect(types.at(-1)).toBe('final');
  });
});

test('SHOW_VARS lists the variables model code made, even in the same block', async () => {
  const llm = createScriptedModel([
    repl('const rows = [1, 2, 3];\nconst listing = await SHOW_VARS();\nSUBMIT(listing);'),
  ]);
  await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
  const listing = String((await rlm.query('q', 'c')).answer);
  expect(listing).toMatch(/^- context \(string/m);
  expect(listing).toMatch(/^- rows \(array, size 3\)/m);
});

test('persistent mode: the same context again is not sent again, a new one gets context_n', async () => {
  const corpus = 'the corpus';
  const llm = createScriptedModel([
    repl('SUBMIT(context)'),
    repl('SUBMIT([context, typeof context_1].join("|"))'),
    repl('SUBMIT([context, context_0, context_1].join("|"))'),
  ]);
  await using rlm = createRLM({
    model: llm,
    sandbox: sandboxFactory,
    session: { persistent: true },
  });
  expect((await rlm.query('one', corpus)).answer).toBe('the corpus');
  expect((await rlm.query('two', corpus)).answer).toBe('the corpus|undefined');
  expect((await rlm.query('three', 'other')).answer).toBe('other|the corpus|other');
});
