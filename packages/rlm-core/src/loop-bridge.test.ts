import { describe, expect, test, vi } from 'vitest';
import { createRLM } from './create-rlm.js';
import { AbortedError } from './errors/aborted-error.js';
import type { GenerateOptions, GenerateRequest, LanguageModel } from './language-model.js';
import { lastMessageText, repl, warningCodes } from './loop-test-helpers.js';
import { collectEvents, createScriptedModel, createScriptedSandbox } from './testing/index.js';

// The bridge and the release of resources, through createRLM only: every host call settles
// exactly once, the overload policies, and what abort, failure and finalize give back.

/** A model whose calls never answer until aborted; it keeps every signal it was given. */
function hangingModel(): LanguageModel & { readonly signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  return {
    modelId: 'hanging',
    supportsTools: false,
    signals,
    generate(_request: GenerateRequest, options: GenerateOptions = {}) {
      const signal = options.signal ?? new AbortController().signal;
      signals.push(signal);
      return new Promise((_, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    },
  };
}

/** Runs `count` llm_query calls at once and SUBMITs how each settled. */
const fanOut = (count: number) =>
  async function fan({
    host,
  }: {
    host: Readonly<Record<string, (...args: unknown[]) => Promise<unknown>>>;
  }) {
    const settled = await Promise.allSettled(
      Array.from({ length: count }, (_, index) => host.llm_query?.(`p${index}`)),
    );
    await host.SUBMIT?.(
      settled.map((outcome) =>
        outcome.status === 'fulfilled'
          ? 'ok'
          : String((outcome.reason as Error).message).includes('maxPending')
            ? 'refused'
            : 'other',
      ),
    );
  };

describe('the bridge', () => {
  test('1,000 concurrent host calls each settle exactly once, with one bridge-result each', async () => {
    const subLlm = createScriptedModel([], {
      fallback: (request) => `echo:${lastMessageText(request)}`,
    });
    const llm = createScriptedModel([repl('many')]);
    const sandbox = createScriptedSandbox({
      many: async ({ host }) => {
        const answers = await Promise.all(
          Array.from({ length: 1_000 }, (_, index) => host.llm_query?.(`p${index}`)),
        );
        await host.SUBMIT?.(answers.filter((answer, index) => answer === `echo:p${index}`).length);
      },
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 1_000 });
    const calls = events.filter((event) => event.type === 'bridge-call');
    const results = events.filter((event) => event.type === 'bridge-result');
    expect(calls).toHaveLength(1_000);
    expect(results).toHaveLength(1_000);
    expect(new Set(results.map((event) => event.requestId)).size).toBe(1_000);
  });

  test('dropping: calls past maxPending are refused, and model code sees why', async () => {
    const subLlm = createScriptedModel([], { fallback: () => ({ text: 'ok', delayMs: 5 }) });
    const llm = createScriptedModel([repl('fan')]);
    await using rlm = createRLM({
      model: llm,
      subModel: subLlm,
      sandbox: createScriptedSandbox({ fan: fanOut(10) }),
      limits: { maxConcurrency: 1 },
      commandQueue: { strategy: 'dropping', maxPending: 4 },
    });
    expect((await rlm.query('q', 'c')).answer).toEqual([
      ...Array.from({ length: 4 }, () => 'ok'),
      ...Array.from({ length: 6 }, () => 'refused'),
    ]);
  });

  test('sliding: the oldest waiting calls are dropped and the newest kept', async () => {
    const subLlm = createScriptedModel([], { fallback: () => ({ text: 'ok', delayMs: 5 }) });
    const llm = createScriptedModel([repl('fan')]);
    await using rlm = createRLM({
      model: llm,
      subModel: subLlm,
      sandbox: createScriptedSandbox({ fan: fanOut(6) }),
      limits: { maxConcurrency: 1 },
      commandQueue: { strategy: 'sliding', maxPending: 3 },
    });
    const outcomes = (await rlm.query('q', 'c')).answer as string[];
    expect(outcomes.filter((outcome) => outcome !== 'ok')).toHaveLength(3);
    expect(outcomes.slice(-2)).toEqual(['ok', 'ok']);
  });

  test('unbounded: every call runs, with one queue-overload warning when the backlog crosses maxPending', async () => {
    const subLlm = createScriptedModel([], { fallback: () => ({ text: 'ok', delayMs: 5 }) });
    const llm = createScriptedModel([repl('fan')]);
    await using rlm = createRLM({
      model: llm,
      subModel: subLlm,
      sandbox: createScriptedSandbox({ fan: fanOut(20) }),
      commandQueue: { strategy: 'unbounded', maxPending: 5 },
    });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(warningCodes(events)).toEqual(['queue-overload']);
    expect(events.at(-1)).toMatchObject({
      type: 'final',
      answer: Array.from({ length: 20 }, () => 'ok'),
    });
  });
});

describe('release', () => {
  test('abort with children and a plain call in flight aborts every model call and disposes every sandbox', async () => {
    const hanging = hangingModel();
    let rootAsked = false;
    const llm: LanguageModel = {
      modelId: 'root',
      supportsTools: false,
      generate(request, options) {
        if (
          !rootAsked &&
          lastMessageText({ ...request, messages: request.messages.slice(0, 1) }).includes(
            'Query: root',
          )
        ) {
          rootAsked = true;
          return Promise.resolve({
            text: repl('spawn'),
            toolCalls: [],
            stopReason: 'end',
            usage: { inputTokens: 1, outputTokens: 1 },
          });
        }
        return hanging.generate(request, options);
      },
    };
    const sandbox = createScriptedSandbox({
      spawn: async ({ host }) => {
        await Promise.all([
          host.sub_rlm?.('child one', 'a'),
          host.sub_rlm?.('child two', 'b'),
          host.llm_query?.('plain'),
        ]);
      },
    });
    await using rlm = createRLM({ model: llm, subModel: hanging, sandbox });
    const abort = new AbortController();
    const running = rlm
      .query('root', 'ctx', { signal: abort.signal })
      .catch((error: unknown) => error);
    await vi.waitFor(() => expect(hanging.signals).toHaveLength(3), { timeout: 30_000 });
    expect(sandbox.sandboxes).toHaveLength(3);
    abort.abort();
    expect(AbortedError.isInstance(await running)).toBe(true);
    expect(hanging.signals.every((signal) => signal.aborted)).toBe(true);
    await vi.waitFor(() => expect(sandbox.sandboxes.every((each) => each.disposed)).toBe(true), {
      timeout: 30_000,
    });
  });

  test('a finished run has disposed its children, the one that failed and the one that answered', async () => {
    const llm = createScriptedModel([], {
      fallback: (request) => {
        const query = lastMessageText({ ...request, messages: request.messages.slice(0, 1) });
        if (query.includes('Query: root')) {
          return lastMessageText(request).includes('REPL output')
            ? 'FINAL(root done)'
            : repl('two');
        }
        if (query.includes('ok child')) return 'FINAL(fine)';
        return { error: new Error('child model failed') };
      },
    });
    const sandbox = createScriptedSandbox({
      two: async ({ host }) => {
        await Promise.allSettled([
          host.sub_rlm?.('ok child', 'a'),
          host.sub_rlm?.('bad child', 'b'),
        ]);
      },
    });
    await using rlm = createRLM({ model: llm, sandbox });
    expect((await rlm.query('root', 'c')).answer).toBe('root done');
    expect(sandbox.sandboxes).toHaveLength(3);
    await vi.waitFor(() => expect(sandbox.sandboxes.every((each) => each.disposed)).toBe(true), {
      timeout: 30_000,
    });
  });

  test('maxConcurrentChildren: a child waits for a slot before its sandbox is made', async () => {
    let open = 0;
    let peak = 0;
    const llm = createScriptedModel([], {
      fallback: (request) => {
        const query = lastMessageText({ ...request, messages: request.messages.slice(0, 1) });
        if (query.includes('Query: root')) {
          return lastMessageText(request).includes('REPL output')
            ? 'FINAL(all done)'
            : repl('spawn');
        }
        return { text: 'FINAL(child)', delayMs: 5 };
      },
    });
    const scripted = createScriptedSandbox({
      spawn: async ({ host }) => {
        await Promise.all(
          Array.from({ length: 5 }, (_, index) => host.sub_rlm?.(`child ${index}`, 'x')),
        );
      },
    });
    const sandbox: typeof scripted = Object.assign(
      async (options: Parameters<typeof scripted>[0]) => {
        const made = await scripted(options);
        open += 1;
        peak = Math.max(peak, open);
        const dispose = made.dispose.bind(made);
        made.dispose = async () => {
          open -= 1;
          await dispose();
        };
        return made;
      },
      { sandboxes: scripted.sandboxes },
    );
    await using rlm = createRLM({ model: llm, sandbox, limits: { maxConcurrentChildren: 2 } });
    expect((await rlm.query('root', 'c')).answer).toBe('all done');
    expect(scripted.sandboxes).toHaveLength(6);
    // The root's own sandbox plus at most two children at once.
    expect(peak).toBe(3);
  });

  test('the wall-time budget ends a run that waits too long, with a typed error', async () => {
    const llm = hangingModel();
    await using rlm = createRLM({
      model: llm,
      sandbox: createScriptedSandbox({}),
      budget: { maxWallTimeMs: 50 },
    });
    const error = await rlm.query('q', 'c').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'BudgetExhaustedError', budget: 'wallTime' });
    expect(llm.signals.every((signal) => signal.aborted)).toBe(true);
  });
});
