import { describe, expect, test } from 'vitest';
import { createRLM } from './create-rlm.js';
import { ModelCallError } from './errors/model-call-error.js';
import { NoFinalAnswerError } from './errors/no-final-answer-error.js';
import type { SandboxFactory } from './sandbox.js';
import { lastMessageText, queryOf, repl } from './loop-test-helpers.js';
import {
  collectEvents,
  createScriptedModel,
  createScriptedSandbox,
  type ScriptedHandler,
} from './testing/index.js';

// The behaviours a model meets in ordinary runs (issue 24), through createRLM only.

describe('the model knows where it is', () => {
  test('each step ends with its number of the most, and what is left of the budgets set', async () => {
    const llm = createScriptedModel([repl('noop'), repl('noop'), 'FINAL(done)']);
    await using rlm = createRLM({
      model: llm,
      sandbox: createScriptedSandbox({ noop: () => 'ok' }),
      limits: { maxIterations: 30 },
      budget: { maxModelCalls: 12, maxWallTimeMs: 600_000 },
    });
    await rlm.query('q', 'c');
    const statuses = llm.requests.map((request) => lastMessageText(request).split('\n').at(-1));
    expect(statuses[0]).toMatch(
      /^Step 1 of 30\. Budget left: 12 model calls, 10 min of wall time\.$/,
    );
    expect(statuses[1]).toMatch(/^Step 2 of 30\. Budget left: 11 model calls, /);
    expect(statuses[2]).toMatch(/^Step 3 of 30\. Budget left: 10 model calls, /);
  });

  test('without budgets, only the step; a cost budget shows the dollars left', async () => {
    const plain = createScriptedModel(['FINAL(done)']);
    await using first = createRLM({ model: plain, sandbox: createScriptedSandbox({}) });
    await first.query('q', 'c');
    expect(lastMessageText(plain.requests[0]!).split('\n').at(-1)).toBe('Step 1 of 20.');

    const priced = createScriptedModel(
      [{ text: 'Thinking.', inputTokens: 0, outputTokens: 140_000 }, 'FINAL(done)'],
      { modelId: 'gpt-5' },
    );
    await using second = createRLM({
      model: priced,
      sandbox: createScriptedSandbox({}),
      budget: { maxCostUsd: 2 },
    });
    await second.query('q', 'c');
    expect(lastMessageText(priced.requests[0]!)).toMatch(/Step 1 of 20\. Budget left: \$2\.00\.$/);
    // 140,000 output tokens of gpt-5 at $10 per million: $1.40 spent.
    expect(lastMessageText(priced.requests[1]!)).toMatch(
      /Step 2 of 20\. Budget left: \$0\.6000\.$/,
    );
  });
});

describe('the context preview', () => {
  test('shows the start and the end of a string context, and the last items of an array', async () => {
    const text = `OPENING-LINE ${'filler '.repeat(500)} CLOSING-LINE`;
    const llm = createScriptedModel(['FINAL(a)', 'FINAL(b)']);
    await using rlm = createRLM({ model: llm, sandbox: createScriptedSandbox({}) });
    await rlm.query('q', text);
    const first = lastMessageText(llm.requests[0]!);
    expect(first).toMatch(/- first characters: "OPENING-LINE filler/);
    expect(first).toMatch(/- last characters: ".*filler {2}CLOSING-LINE"/);

    await rlm.query('q', ['doc 0', 'doc 1', 'doc 2', 'doc 3', 'doc 4', 'doc 5', 'doc 6']);
    const second = lastMessageText(llm.requests[1]!);
    expect(second).toContain('- first items: "[\\"doc 0\\",\\"doc 1\\",\\"doc 2\\"]"');
    expect(second).toContain('- last items: "[\\"doc 4\\",\\"doc 5\\",\\"doc 6\\"]"');
  });
});

describe('batched calls keep what succeeded', () => {
  test('llm_query_batched: one failing prompt takes its own slot, the others keep their answers', async () => {
    const llm = createScriptedModel([repl('batch'), 'FINAL(done)']);
    const subLlm = createScriptedModel([], {
      fallback: (request) =>
        lastMessageText(request) === 'b'
          ? { error: new ModelCallError('the provider is overloaded', { reason: 'server' }) }
          : `answer to ${lastMessageText(request)}`,
    });
    const seen: unknown[] = [];
    const sandbox = createScriptedSandbox({
      batch: async ({ host, print }) => {
        const answers = (await host.llm_query_batched?.(['a', 'b', 'c'])) as unknown[];
        seen.push(...answers);
        print(JSON.stringify(answers));
      },
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox });
    await rlm.query('q', 'c');
    expect(seen).toEqual([
      'answer to a',
      { error: 'ModelCallError', message: 'the provider is overloaded' },
      'answer to c',
    ]);
    expect(lastMessageText(llm.requests[1]!)).toContain(
      '["answer to a",{"error":"ModelCallError","message":"the provider is overloaded"},"answer to c"]',
    );
  });

  test('sub_rlm_batched: a child that fails takes its own slot; the others answer, in order', async () => {
    const llm = createScriptedModel([], {
      fallback: (request) => {
        const query = queryOf(request);
        const executed = lastMessageText(request).includes('REPL output');
        if (query.includes('Query: root')) return executed ? 'FINAL(done)' : repl('fan out');
        if (query.includes('Query: broken')) return { error: new Error('child model down') };
        return `FINAL(${query.includes('Query: first') ? 'one' : 'two'})`;
      },
    });
    const seen: unknown[] = [];
    const sandbox = createScriptedSandbox({
      'fan out': async ({ host }) => {
        const tasks = [
          { query: 'first', context: 'x' },
          { query: 'broken', context: 'y' },
          { query: 'second' },
        ];
        seen.push(await host.sub_rlm_batched?.(tasks));
      },
    });
    await using rlm = createRLM({ model: llm, sandbox });
    const result = await rlm.query('root', 'c');
    expect(seen).toEqual([['one', { error: 'Error', message: 'child model down' }, 'two']]);
    expect(result.depthReached).toBe(1);
    expect(sandbox.sandboxes).toHaveLength(4);
  });

  test('sub_rlm_batched refuses malformed tasks whole, naming the first bad one', async () => {
    const llm = createScriptedModel([repl('bad'), 'FINAL(done)']);
    const refusals: string[] = [];
    const sandbox = createScriptedSandbox({
      bad: async ({ host }) => {
        for (const tasks of ['q', [{ query: 'ok' }, 'q'], [{ context: 'c' }]]) {
          await host.sub_rlm_batched?.(tasks).catch((error: Error) => refusals.push(error.message));
        }
      },
    });
    await using rlm = createRLM({ model: llm, sandbox });
    await rlm.query('q', 'c');
    expect(refusals).toEqual([
      'sub_rlm_batched(tasks) needs an array of { query, context } objects; got a string',
      'sub_rlm_batched(tasks): task 1 needs to be an object { query, context }; got a string',
      'sub_rlm_batched(tasks): task 0 needs a non-empty query string; got undefined',
    ]);
    expect(llm.requests).toHaveLength(2);
  });
});

describe('budgets count the calls that were made', () => {
  test('a batch the call budget cannot hold is refused whole: nothing is charged, the root still answers', async () => {
    const llm = createScriptedModel([repl('batch'), 'FINAL(answered anyway)']);
    const subLlm = createScriptedModel([], { fallback: () => 'sub answer' });
    const refusals: string[] = [];
    const sandbox = createScriptedSandbox({
      batch: async ({ host }) => {
        const prompts = Array.from({ length: 10 }, (_, index) => `prompt ${index}`);
        await host
          .llm_query_batched?.(prompts)
          .catch((error: Error) => refusals.push(error.message));
      },
    });
    await using rlm = createRLM({
      model: llm,
      subModel: subLlm,
      sandbox,
      budget: { maxModelCalls: 6 },
    });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe('answered anyway');
    expect(subLlm.requests).toHaveLength(0);
    expect(result.usage.modelCalls).toBe(2);
    expect(refusals).toEqual([
      'llm_query_batched(prompts): refused: 10 calls do not fit in the model call budget, which has 5 left (budget.maxModelCalls 6); nothing was sent. Send at most 5, fewer to keep some for your answer',
    ]);
  });

  test('a batch that fits runs whole and counts each call it made', async () => {
    const llm = createScriptedModel([repl('batch'), 'FINAL(done)']);
    const subLlm = createScriptedModel([], { fallback: () => 'sub answer' });
    const sandbox = createScriptedSandbox({
      batch: async ({ host }) => {
        await host.llm_query_batched?.(['a', 'b', 'c']);
      },
    });
    await using rlm = createRLM({
      model: llm,
      subModel: subLlm,
      sandbox,
      budget: { maxModelCalls: 6 },
    });
    const result = await rlm.query('q', 'c');
    expect(result.usage.modelCalls).toBe(5);
    expect(subLlm.requests).toHaveLength(3);
  });
});

describe('empty sub-answers are visible', () => {
  test('an empty llm_query answer comes back as "" with a warning event and a note after the output', async () => {
    const llm = createScriptedModel([repl('ask'), 'FINAL(done)']);
    const subLlm = createScriptedModel(['', 'fine', '  ']);
    const got: unknown[] = [];
    const sandbox = createScriptedSandbox({
      ask: async ({ host, print }) => {
        got.push(await host.llm_query?.('first'));
        got.push(await host.llm_query_batched?.(['second', 'third']));
        print('printed by the code');
      },
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(got).toEqual(['', ['fine', '  ']]);
    const warnings = events.filter((event) => event.type === 'warning');
    expect(warnings.map((event) => [event.code, event.message])).toEqual([
      ['empty-sub-answer', 'llm_query: scripted answered with no text'],
      ['empty-sub-answer', 'llm_query_batched prompt 1 of 2: scripted answered with no text'],
    ]);
    const feedback = lastMessageText(llm.requests[1]!);
    expect(feedback).toContain(
      'REPL output:\nprinted by the code\nWarning: llm_query got an empty answer ("") from scripted.',
    );
    expect(feedback).toContain(
      'Warning: llm_query_batched prompt 1 of 2 got an empty answer ("") from scripted.',
    );
  });
});

describe('per-call model choice', () => {
  test('llm_query and llm_query_batched use the model named; the calls without one keep the sub model', async () => {
    const cheap = createScriptedModel([], { modelId: 'p:cheap', fallback: () => 'from cheap' });
    const llm = createScriptedModel([repl('choose'), 'FINAL(done)'], { modelId: 'p:root' });
    const subLlm = createScriptedModel([], {
      modelId: 'p:sub',
      fallback: () => 'from sub',
      otherModels: { cheap },
    });
    const got: unknown[] = [];
    const sandbox = createScriptedSandbox({
      choose: async ({ host }) => {
        got.push(await host.llm_query?.('x', { model: 'cheap' }));
        got.push(await host.llm_query?.('x', { model: 'p:cheap' }));
        got.push(await host.llm_query?.('x'));
        got.push(await host.llm_query_batched?.(['x', 'y'], { model: 'cheap' }));
      },
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(got).toEqual(['from cheap', 'from cheap', 'from sub', ['from cheap', 'from cheap']]);
    expect(cheap.requests).toHaveLength(4);
    const usageModels = events.flatMap((event) => (event.type === 'usage' ? [event.modelId] : []));
    expect(usageModels).toEqual([
      'p:root',
      'p:cheap',
      'p:cheap',
      'p:sub',
      'p:cheap',
      'p:cheap',
      'p:root',
    ]);
  });

  test('sub_rlm with { model }: the child steps with it, and the parent keeps its own', async () => {
    const strong = createScriptedModel([], {
      modelId: 'p:strong',
      fallback: (request) => {
        expect(queryOf(request)).toContain('Query: child');
        return 'FINAL(child answer)';
      },
    });
    const llm = createScriptedModel([repl('delegate'), 'FINAL(parent answer)'], {
      modelId: 'p:root',
      otherModels: { strong },
    });
    const got: unknown[] = [];
    const sandbox = createScriptedSandbox({
      delegate: async ({ host }) => {
        got.push(await host.sub_rlm?.('child', 'ctx', { model: 'strong' }));
      },
    });
    await using rlm = createRLM({ model: llm, sandbox });
    const result = await rlm.query('root', 'c');
    expect(got).toEqual(['child answer']);
    expect(result.answer).toBe('parent answer');
    expect(strong.requests).toHaveLength(1);
    expect(llm.requests).toHaveLength(2);
  });

  test('with subModels only the listed ids go; a refused or unknown id is an error naming what is allowed', async () => {
    const cheap = createScriptedModel([], { modelId: 'p:cheap', fallback: () => 'from cheap' });
    const llm = createScriptedModel([repl('choose'), 'FINAL(done)'], {
      modelId: 'p:root',
      otherModels: { cheap },
    });
    const refusals: string[] = [];
    const sandbox = createScriptedSandbox({
      choose: async ({ host }) => {
        for (const options of [{ model: 'expensive' }, { model: 7 }, { temperature: 0 }]) {
          await host
            .llm_query?.('x', options)
            .catch((error: Error) => refusals.push(error.message));
        }
        await host.llm_query?.('x', { model: 'cheap' });
      },
    });
    await using rlm = createRLM({ model: llm, sandbox, subModels: ['p:cheap'] });
    await rlm.query('q', 'c');
    expect(llm.requests[0]!.system).toContain(
      'without it, `llm_query` uses root and a `sub_rlm` child root.',
    );
    expect(llm.requests[0]!.system).toContain('The models you may choose:\n- cheap\n');
    expect(refusals).toEqual([
      'llm_query(prompt, options): model "expensive" is not one this run allows; choose one of: cheap',
      'llm_query(prompt, options) needs the model as a non-empty model id string; got a number',
      'llm_query(prompt, options) takes only the option model (e.g. { model: "id" }); got "temperature"',
    ]);
    expect(cheap.requests).toHaveLength(1);

    const open = createScriptedModel([repl('unknown'), 'FINAL(done)'], {
      modelId: 'p:root',
      otherModels: {},
    });
    const failures: string[] = [];
    const unknown = createScriptedSandbox({
      unknown: async ({ host }) => {
        await host
          .llm_query?.('x', { model: 'no-such-model' })
          .catch((error: Error) => failures.push(error.message));
      },
    });
    await using other = createRLM({ model: open, sandbox: unknown });
    await other.query('q', 'c');
    expect(failures).toEqual([
      'no-such-model: scripted model: no model named "no-such-model"; is "no-such-model" a model its provider serves? Leave out { model } to use p:root',
    ]);
  });

  test('a cost budget still holds: unpriced choices are refused, and listed ids need a price', async () => {
    const llm = createScriptedModel([repl('choose'), 'FINAL(done)'], {
      modelId: 'anthropic:claude-sonnet-4-5',
      otherModels: {},
    });
    const refusals: string[] = [];
    const sandbox = createScriptedSandbox({
      choose: async ({ host }) => {
        await host
          .llm_query?.('x', { model: 'my-finetune' })
          .catch((error: Error) => refusals.push(error.message));
      },
    });
    await using rlm = createRLM({ model: llm, sandbox, budget: { maxCostUsd: 1 } });
    await rlm.query('q', 'c');
    expect(refusals).toEqual([
      'llm_query(prompt, options): model "my-finetune" has no price, and this run has a cost budget; choose a model with a known price',
    ]);
    expect(() =>
      createRLM({
        model: llm,
        sandbox,
        budget: { maxCostUsd: 1 },
        subModels: ['claude-haiku-4-5', 'x'],
      }),
    ).toThrow(
      "@rlm/core: budget.maxCostUsd needs a price for the sub model 'x', which has none; give one in createRLM({ prices }) or leave it out of subModels",
    );
    expect(() => createRLM({ model: llm, sandbox, subModels: ['ok', ''] })).toThrow(
      '@rlm/core: subModels must be a list of model ids (non-empty strings)',
    );
  });
});

describe('a consecutive-error limit', () => {
  test('n blocks in a row that throw end the run with the partial answer and the reason', async () => {
    const llm = createScriptedModel([], {
      fallback: () => `Attempt ${llm.requests.length}: trying again.\n${repl('fail')}`,
    });
    const sandbox = createScriptedSandbox({
      fail: () => {
        throw new TypeError('x is not a function');
      },
    });
    await using rlm = createRLM({ model: llm, sandbox, limits: { maxConsecutiveErrors: 3 } });
    const { events, error } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(NoFinalAnswerError.isInstance(error)).toBe(true);
    const typed = error as NoFinalAnswerError;
    expect(typed.message).toContain(
      '3 code blocks in a row threw an error (limits.maxConsecutiveErrors is 3); the last: TypeError: x is not a function',
    );
    expect(typed.partialAnswer).toContain('Attempt 3: trying again.');
    expect(llm.requests).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: 'call-error', errorName: 'NoFinalAnswerError' });
  });

  test('a block that runs through starts the count again; without the setting there is no limit', async () => {
    const script = ['fail', 'fail', 'ok', 'fail', 'fail'].map((code) => repl(code));
    const sandbox = createScriptedSandbox({
      fail: () => {
        throw new Error('boom');
      },
      ok: () => 'fine',
    });
    const limited = createScriptedModel([...script, 'FINAL(done)']);
    await using rlm = createRLM({ model: limited, sandbox, limits: { maxConsecutiveErrors: 3 } });
    expect((await rlm.query('q', 'c')).answer).toBe('done');

    const unlimited = createScriptedModel([...script, ...script, 'FINAL(done)']);
    await using open = createRLM({ model: unlimited, sandbox });
    expect((await open.query('q', 'c')).answer).toBe('done');
    expect(() =>
      createRLM({ model: limited, sandbox, limits: { maxConsecutiveErrors: 0 } }),
    ).toThrow('@rlm/core: limits.maxConsecutiveErrors must be a positive integer, got 0');
  });
});

describe('computed output is shown, not redacted', () => {
  const document = Array.from(
    { length: 260 },
    (_, index) => `Paragraph ${index} reports ${index * 31} units shipped.`,
  ).join('\n');

  test('a summary longer than a quarter of the document is shown whole; a dump of half of it is redacted', async () => {
    const summary = Array.from({ length: 300 }, (_, index) => `row ${index}: ${index * 2}`).join(
      '\n',
    );
    expect(summary.length).toBeGreaterThan(document.length / 4);
    const llm = createScriptedModel([repl('summarize'), repl('dump'), 'FINAL(done)']);
    const sandbox = createScriptedSandbox({
      summarize: () => summary,
      dump: () => `Here it is:\n${document.slice(0, 6_000)}`,
    });
    await using rlm = createRLM({ model: llm, sandbox });
    const { events } = await collectEvents(rlm.queryStream('q', document));
    const shown = events.flatMap((event) =>
      event.type === 'execution' ? [event.shownToModel] : [],
    );
    expect(shown[0]).toBe(summary);
    expect(shown[1]).toBe(
      'Here it is:\n[redacted: 6000 characters copied verbatim from context.slice(0, 6000); work on them in code instead of printing them]',
    );
    expect(lastMessageText(llm.requests[1]!)).toContain(summary);
  });

  test('redactionRatio Infinity never redacts; the output is truncated head and tail as usual', async () => {
    const llm = createScriptedModel([repl('dump'), 'FINAL(done)']);
    const sandbox = createScriptedSandbox({ dump: () => document });
    await using rlm = createRLM({
      model: llm,
      sandbox,
      limits: { maxOutputChars: 1_000 },
      redactionRatio: Number.POSITIVE_INFINITY,
    });
    const { events } = await collectEvents(rlm.queryStream('q', document));
    const execution = events.find((event) => event.type === 'execution');
    expect(execution?.type === 'execution' && execution.shownToModel).toContain(
      `the output was ${document.length} characters`,
    );
    expect(() => createRLM({ model: llm, sandbox, redactionRatio: 0 })).toThrow(
      '@rlm/core: redactionRatio must be a number above 0 (Infinity for never), got 0',
    );
  });
});

describe('SUBMIT ends the block', () => {
  test('nothing after SUBMIT runs: no model call, no output; the answer is the value submitted', async () => {
    const llm = createScriptedModel([repl('submit')]);
    const subLlm = createScriptedModel([], { fallback: () => 'should not be asked' });
    const sandbox = createScriptedSandbox({
      submit: async ({ host, print }) => {
        print('before');
        void host.SUBMIT?.(42);
        const late = await host.llm_query?.('after SUBMIT').catch((error: Error) => error.message);
        print('after', late);
      },
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(subLlm.requests).toHaveLength(0);
    expect(events.filter((event) => event.type === 'bridge-call')).toEqual([]);
    expect(events.find((event) => event.type === 'execution')).toMatchObject({
      output: 'before',
      shownToModel: 'before',
    });
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 42, source: 'submit-code' });
  });

  test('FINAL_VAR in code ends the block too, and reads the variable as it was', async () => {
    const llm = createScriptedModel([repl('final var')]);
    const sandbox = createScriptedSandbox({
      'final var': async ({ host, variables }) => {
        variables.set('report', 'kept');
        await host.FINAL_VAR?.('report');
        variables.set('report', 'changed after FINAL_VAR');
      },
    });
    await using rlm = createRLM({ model: llm, sandbox });
    expect((await rlm.query('q', 'c')).answer).toBe('kept');
  });

  test('the host refuses calls after SUBMIT even from a sandbox that lets the code run on', async () => {
    const llm = createScriptedModel([repl('submit')]);
    const subLlm = createScriptedModel([], { fallback: () => 'should not be asked' });
    const scripted = createScriptedSandbox({
      submit: async ({ host, print }) => {
        await host.SUBMIT?.('answer');
        print(await host.llm_query?.('x').catch((error: Error) => error.message));
      },
    });
    // A sandbox that ignores endingFunctions: the code goes on past SUBMIT.
    const sandbox: SandboxFactory = (options) =>
      scripted({ ...options, endingFunctions: undefined });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(subLlm.requests).toHaveLength(0);
    expect(events.find((event) => event.type === 'execution')).toMatchObject({
      output: 'llm_query was not called: SUBMIT or FINAL_VAR already ended this code block',
    });
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'answer' });
  });
});

describe('history after compaction', () => {
  test('steps compacted out of the prompt keep their exact code and output in history', async () => {
    const steps = Array.from({ length: 8 }, (_, index) => repl(`emit ${index}`));
    let seen: unknown;
    const llm = createScriptedModel([...steps, repl('look back'), 'FINAL(done)']);
    const script: Record<string, ScriptedHandler> = {
      'look back': ({ variables }) => {
        seen = variables.get('history');
      },
    };
    for (let index = 0; index < 8; index += 1) {
      script[`emit ${index}`] = ({ print }) => print(`output ${index} `.repeat(300));
    }
    const sandbox = createScriptedSandbox(script);
    await using rlm = createRLM({ model: llm, sandbox, limits: { historyBudgetChars: 12_000 } });
    await rlm.query('the question', 'c');
    const history = seen as {
      query: string;
      steps: { step: number; code: string; output: string }[];
    }[];
    expect(history).toHaveLength(1);
    expect(history[0]!.query).toBe('the question');
    const compacted = history[0]!.steps;
    expect(compacted.length).toBeGreaterThan(2);
    compacted.forEach((entry, index) => {
      expect(entry).toEqual({
        step: index + 1,
        code: `emit ${index}`,
        output: `output ${index} `.repeat(300),
      });
    });
    const prompt = JSON.stringify(llm.requests[8]!.messages[0]);
    expect(prompt).toContain(`Earlier steps 1-${compacted.length}, compacted`);
    expect(prompt).toContain('`history.at(-1).steps` holds their exact code and output');
  });

  test('before anything is compacted, history holds the query with no steps', async () => {
    let seen: unknown;
    const llm = createScriptedModel([repl('look'), 'FINAL(done)']);
    const sandbox = createScriptedSandbox({
      look: ({ variables }) => {
        seen = variables.get('history');
      },
    });
    await using rlm = createRLM({ model: llm, sandbox });
    await rlm.query('q', 'c');
    expect(seen).toEqual([{ query: 'q', steps: [] }]);
  });
});
