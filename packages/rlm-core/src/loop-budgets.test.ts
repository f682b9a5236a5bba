import { describe, expect, test } from 'vitest';
import { createRLM } from './create-rlm.js';
import { AbortedError } from './errors/aborted-error.js';
import { BudgetExhaustedError } from './errors/budget-exhausted-error.js';
import { NoFinalAnswerError } from './errors/no-final-answer-error.js';
import { lastMessageText, repl, submitTool } from './loop-test-helpers.js';
import { collectEvents, createScriptedModel, createScriptedSandbox } from './testing/index.js';

// Budgets, the forced final prompt, partial answers and abort, through createRLM only.

describe('out of iterations', () => {
  test('one forced final prompt listing the variables, then its answer', async () => {
    const llm = createScriptedModel([
      repl('partial'),
      repl('noop'),
      (request) => {
        const prompt = lastMessageText(request);
        expect(prompt).toContain('You have used all of your iterations');
        expect(prompt).toMatch(/- partial \(string/);
        return 'FINAL_VAR(partial)';
      },
    ]);
    const sandbox = createScriptedSandbox({
      partial: { variables: { partial: 'best so far' } },
      noop: () => {},
    });
    await using rlm = createRLM({ model: llm, sandbox, limits: { maxIterations: 2 } });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(events.at(-1)).toMatchObject({
      answer: 'best so far',
      source: 'extract',
      iterations: 2,
    });
    expect(llm.requests).toHaveLength(3);
  });

  test('with tools, the forced prompt forces the SUBMIT tool', async () => {
    const llm = createScriptedModel([repl('noop'), submitTool({ answer: 'forced' })], {
      supportsTools: true,
    });
    await using rlm = createRLM({
      model: llm,
      sandbox: createScriptedSandbox({ noop: () => {} }),
      limits: { maxIterations: 1 },
    });
    expect((await rlm.query('q', 'c')).answer).toBe('forced');
    expect(llm.requests[0]?.toolChoice).toBe('auto');
    expect(llm.requests[1]?.toolChoice).toEqual({ tool: 'SUBMIT' });
  });

  test('no answer even then: NoFinalAnswerError with diagnostics and the last text as partial answer', async () => {
    const llm = createScriptedModel([repl('noop'), 'I am still thinking about it.']);
    await using rlm = createRLM({
      model: llm,
      sandbox: createScriptedSandbox({ noop: () => {} }),
      limits: { maxIterations: 1 },
    });
    const error = await rlm.query('q', 'c').catch((caught: unknown) => caught);
    expect(NoFinalAnswerError.isInstance(error)).toBe(true);
    const typed = error as NoFinalAnswerError;
    expect(typed.partialAnswer).toBe('I am still thinking about it.');
    expect(typed.diagnostics).toMatchObject({ iterations: 1, depth: 0 });
    expect(typed.diagnostics.reason).toContain('forced final prompt');
  });
});

describe('shared budgets', () => {
  test('maxModelCalls counts llm_query too and ends the run with a typed error and the partial answer', async () => {
    const llm = createScriptedModel([], {
      fallback: () => `Working on it.\n${repl('ask')}`,
    });
    const sandbox = createScriptedSandbox({
      ask: async ({ host, print }) => print(await host.llm_query?.('sub question')),
    });
    await using rlm = createRLM({ model: llm, sandbox, budget: { maxModelCalls: 3 } });
    const { events, error } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(BudgetExhaustedError.isInstance(error)).toBe(true);
    const typed = error as BudgetExhaustedError;
    expect(typed.budget).toBe('modelCalls');
    expect(typed.partialAnswer).toContain('Working on it.');
    // Root step 1, its llm_query, root step 2: the fourth call is refused.
    expect(llm.requests).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: 'call-error', errorName: 'BudgetExhaustedError' });
  });

  test('maxTokens ends the run once spent', async () => {
    const llm = createScriptedModel([], {
      fallback: () => ({ text: 'Still going.', inputTokens: 60, outputTokens: 40 }),
    });
    await using rlm = createRLM({
      model: llm,
      sandbox: createScriptedSandbox({}),
      budget: { maxTokens: 250 },
    });
    const error = await rlm.query('q', 'c').catch((caught: unknown) => caught);
    expect(BudgetExhaustedError.isInstance(error)).toBe(true);
    expect((error as BudgetExhaustedError).budget).toBe('tokens');
    expect((error as BudgetExhaustedError).partialAnswer).toBe('Still going.');
    expect(llm.requests).toHaveLength(3);
  });

  test('usage and callUsage add up over the root and its llm_query calls', async () => {
    const llm = createScriptedModel([repl('ask'), 'FINAL(done)']);
    const subLlm = createScriptedModel([{ text: 'sub', inputTokens: 5, outputTokens: 1 }]);
    const sandbox = createScriptedSandbox({
      ask: async ({ host }) => {
        await host.llm_query?.('x');
      },
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox });
    const result = await rlm.query('q', 'c');
    expect(result.usage).toMatchObject({ modelCalls: 3, inputTokens: 25, outputTokens: 21 });
    expect(result.callUsage.map((entry) => [entry.kind, entry.usage.modelCalls])).toEqual([
      ['root', 2],
      ['llm_query', 1],
    ]);
  });
});

describe('abort', () => {
  test('aborting while code awaits a model call rejects with AbortedError and releases the sandbox', async () => {
    let called!: () => void;
    const subCallStarted = new Promise<void>((resolve) => {
      called = resolve;
    });
    const subLlm = createScriptedModel([
      () => {
        called();
        return { text: 'too late', delayMs: 60_000 };
      },
    ]);
    const llm = createScriptedModel([repl('ask')]);
    const sandbox = createScriptedSandbox({
      ask: async ({ host }) => {
        await host.llm_query?.('slow');
      },
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox });
    const abort = new AbortController();
    const running = collectEvents(rlm.queryStream('q', 'c', { signal: abort.signal }));
    await subCallStarted;
    abort.abort();
    const { events, error } = await running;
    expect(AbortedError.isInstance(error)).toBe(true);
    expect(sandbox.sandboxes[0]?.disposed).toBe(true);
    const results = events.filter((event) => event.type === 'bridge-result');
    expect(results).toEqual([expect.objectContaining({ name: 'llm_query', ok: false })]);
    expect(events.filter((event) => event.type === 'call-error')).toEqual([
      expect.objectContaining({ errorName: 'AbortedError' }),
    ]);
  });

  test('a signal aborted before the query starts rejects at once, before any model call', async () => {
    const llm = createScriptedModel(['FINAL(never)']);
    await using rlm = createRLM({ model: llm, sandbox: createScriptedSandbox({}) });
    const error = await rlm
      .query('q', 'c', { signal: AbortSignal.abort() })
      .catch((caught: unknown) => caught);
    expect(AbortedError.isInstance(error)).toBe(true);
    expect(llm.requests).toHaveLength(0);
  });
});
