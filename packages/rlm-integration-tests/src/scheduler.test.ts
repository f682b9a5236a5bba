import {
  AbortedError,
  createRLM,
  type GenerateOptions,
  type LanguageModel,
  type RlmEvent,
  type Sandbox,
  type SandboxFactory,
} from '@rlm/core';
import { createScriptedModel, waitUntil } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

/** Wraps the real factory to count sandboxes still open. */
function countingFactory(): { factory: SandboxFactory; open: () => number; created: () => number } {
  let open = 0;
  let created = 0;
  const factory: SandboxFactory = async (options) => {
    const sandbox = await sandboxFactory(options);
    open += 1;
    created += 1;
    let disposed = false;
    const dispose = async () => {
      if (!disposed) {
        disposed = true;
        open -= 1;
      }
      await sandbox.dispose();
    };
    const wrapped: Sandbox = {
      execute: (code, executeOptions) => sandbox.execute(code, executeOptions),
      listVariables: () => sandbox.listVariables(),
      getVariable: (name) => sandbox.getVariable(name),
      setVariables: (values, setOptions) => sandbox.setVariables(values, setOptions),
      dispose,
      [Symbol.asyncDispose]: dispose,
    };
    return wrapped;
  };
  return { factory, open: () => open, created: () => created };
}

/** A model whose calls record their abort signals and never answer until aborted. */
function hangingModel(): LanguageModel & { signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  return {
    modelId: 'hanging',
    supportsTools: false,
    signals,
    generate(_request, options: GenerateOptions = {}) {
      signals.push(options.signal!);
      return new Promise((_resolve, reject) => {
        options.signal!.addEventListener('abort', () => reject(options.signal!.reason), {
          once: true,
        });
      });
    },
  };
}

async function collect(stream: AsyncIterable<RlmEvent>): Promise<RlmEvent[]> {
  const events: RlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('variable space', () => {
  test('variables-updated at call start, after each execution and before extract', async () => {
    const llm = createScriptedModel([repl('const b = 2;\nconst a = "x";'), 'FINAL_VAR(a)']);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      limits: { maxIterations: 1 },
    });
    const events = await collect(rlm.queryStream('q', 'ctx'));
    const updates = events.filter((event) => event.type === 'variables-updated');
    expect(updates.map((event) => event.reason)).toEqual(['start', 'code-executed', 'extract']);
    const afterCode = updates[1]!;
    const names = afterCode.variables.map((variable) => variable.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['a', 'b', 'context']));
    expect(afterCode.freshness).toBe('fresh');
  });

  test('a failing listing is retried, then the old snapshot is kept stale and the run goes on', async () => {
    let listings = 0;
    const flaky: SandboxFactory = async (options) => {
      const sandbox = await sandboxFactory(options);
      return {
        ...sandbox,
        execute: (code, o) => sandbox.execute(code, o),
        getVariable: (name) => sandbox.getVariable(name),
        setVariables: (v, o) => sandbox.setVariables(v, o),
        dispose: () => sandbox.dispose(),
        [Symbol.asyncDispose]: () => sandbox.dispose(),
        listVariables: () => {
          listings += 1;
          return listings === 1
            ? sandbox.listVariables()
            : Promise.reject(new Error('worker busy'));
        },
      };
    };
    const llm = createScriptedModel([repl('const v = 1;'), 'FINAL(ok)']);
    await using rlm = createRLM({
      model: llm,
      sandbox: flaky,
      variableSync: { retries: 2, backoffMs: 1 },
    });
    const events = await collect(rlm.queryStream('q', 'c'));
    const failed = events.find((event) => event.type === 'variable-sync-failed');
    expect(failed).toMatchObject({ reason: 'code-executed', retries: 2, timedOut: false });
    expect(listings).toBe(4);
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'ok' });
  });
});

describe('scheduler hardening', () => {
  test('1,000 concurrent bridge calls each settle exactly once', async () => {
    const sub = createScriptedModel([], {
      fallback: (request) => `echo:${JSON.stringify(request.messages[0]!.content)}`,
    });
    const llm = createScriptedModel([
      repl(
        'const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => llm_query("p" + i)));\nSUBMIT(results.filter((r, i) => r === "echo:\\"p" + i + "\\"").length);',
      ),
    ]);
    await using rlm = createRLM({ model: llm, subModel: sub, sandbox: sandboxFactory });
    const events = await collect(rlm.queryStream('q', 'c'));
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 1000 });
    const calls = events.filter((event) => event.type === 'bridge-call');
    const results = events.filter((event) => event.type === 'bridge-result');
    expect(calls).toHaveLength(1000);
    expect(new Set(results.map((event) => event.requestId)).size).toBe(1000);
    expect(results).toHaveLength(1000);
  });

  test('dropping policy refuses calls past maxPending; model code sees the refusal', async () => {
    const sub = createScriptedModel([], { fallback: () => ({ text: 'ok', delayMs: 20 }) });
    const llm = createScriptedModel([
      repl(
        'const settled = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => llm_query("p" + i)));\nSUBMIT(settled.map((s) => s.status === "fulfilled" ? "ok" : s.reason.message.includes("maxPending") ? "refused" : "other").join(","));',
      ),
    ]);
    await using rlm = createRLM({
      model: llm,
      subModel: sub,
      sandbox: sandboxFactory,
      limits: { maxConcurrency: 1 },
      commandQueue: { strategy: 'dropping', maxPending: 4 },
    });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe('ok,ok,ok,ok,refused,refused,refused,refused,refused,refused');
  });

  test('sliding policy drops the oldest waiting call and keeps the newest', async () => {
    const sub = createScriptedModel([], { fallback: () => ({ text: 'ok', delayMs: 20 }) });
    const llm = createScriptedModel([
      repl(
        'const settled = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => llm_query("p" + i)));\nSUBMIT(settled.map((s) => s.status === "fulfilled" ? "ok" : "dropped").join(","));',
      ),
    ]);
    await using rlm = createRLM({
      model: llm,
      subModel: sub,
      sandbox: sandboxFactory,
      limits: { maxConcurrency: 1 },
      commandQueue: { strategy: 'sliding', maxPending: 3 },
    });
    const outcomes = String((await rlm.query('q', 'c')).answer).split(',');
    // Whether the first call already holds the model slot depends on message timing; either
    // way the three oldest waiting calls are dropped and the newest ones run.
    expect(outcomes.filter((outcome) => outcome === 'dropped')).toHaveLength(3);
    expect(outcomes.slice(-2)).toEqual(['ok', 'ok']);
  });

  test('unbounded policy warns once when the backlog crosses maxPending', async () => {
    const sub = createScriptedModel([], { fallback: () => ({ text: 'ok', delayMs: 20 }) });
    const llm = createScriptedModel([
      repl('await Promise.all(Array.from({ length: 20 }, () => llm_query("p")));\nSUBMIT("done");'),
    ]);
    await using rlm = createRLM({
      model: llm,
      subModel: sub,
      sandbox: sandboxFactory,
      commandQueue: { strategy: 'unbounded', maxPending: 5 },
    });
    const events = await collect(rlm.queryStream('q', 'c'));
    const warnings = events.filter(
      (event) => event.type === 'warning' && event.code === 'queue-overload',
    );
    expect(warnings).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'done' });
  });

  test('a slow event consumer never stalls the loop', async () => {
    const llm = createScriptedModel([
      repl('await Promise.all(Array.from({ length: 200 }, () => llm_query("p")));'),
      'FINAL(done)',
    ]);
    const subLlm = createScriptedModel([], { fallback: () => 'ok' });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox: sandboxFactory });
    const stream = rlm.queryStream('q', 'c')[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'call-start' });
    // The consumer reads nothing more while the run goes on: the run must reach its end
    // (every sub-call and the final model call made) without it.
    await waitUntil(
      () => subLlm.requests.length === 200 && llm.requests.length === 2,
      'the 200 sub-calls and the second step',
      20_000,
    );
    const rest: RlmEvent[] = [];
    for (let next = await stream.next(); !next.done; next = await stream.next())
      rest.push(next.value);
    expect(rest.at(-1)).toMatchObject({ type: 'final', answer: 'done' });
  });

  test('abort with nested calls in flight releases every sandbox, model call and bridge request', async () => {
    const counter = countingFactory();
    const model = hangingModel();
    let rootStep = 0;
    const llm: LanguageModel = {
      modelId: 'root',
      supportsTools: false,
      generate(request, options) {
        const first = JSON.stringify(request.messages[0]);
        if (first.includes('Query: root') && rootStep === 0) {
          rootStep += 1;
          return Promise.resolve({
            text: repl(
              'await Promise.all([sub_rlm("child one", "a"), sub_rlm("child two", "b"), llm_query("plain")]);',
            ),
            toolCalls: [],
            stopReason: 'end',
            usage: { inputTokens: 1, outputTokens: 1 },
          });
        }
        return model.generate(request, options);
      },
    };
    await using rlm = createRLM({
      model: llm,
      subModel: model,
      sandbox: counter.factory,
      session: { persistent: true },
    });
    const abort = new AbortController();
    const run = rlm
      .query('root', 'ctx', { signal: abort.signal })
      .catch((caught: unknown) => caught);
    await waitUntil(() => model.signals.length === 3, 'three model calls');
    expect(counter.created()).toBe(3);
    abort.abort();
    const error = await run;
    expect(AbortedError.isInstance(error)).toBe(true);
    expect(model.signals.every((signal) => signal.aborted)).toBe(true);
    await waitUntil(() => counter.open() === 1, 'one open call');
    expect(counter.open()).toBe(1); // only the persistent root sandbox stays, for the next query
  });

  test('abort while 1,000 bridge calls are in flight: every call is released', async () => {
    const counter = countingFactory();
    const model = hangingModel();
    const llm = createScriptedModel([
      repl('await Promise.all(Array.from({ length: 1000 }, (_, i) => llm_query("p" + i)));'),
    ]);
    await using rlm = createRLM({
      model: llm,
      subModel: model,
      sandbox: counter.factory,
      limits: { maxConcurrency: 64 },
      session: { persistent: true },
    });
    const abort = new AbortController();
    const events: RlmEvent[] = [];
    const run = (async () => {
      for await (const event of rlm.queryStream('q', 'c', { signal: abort.signal })) {
        events.push(event);
      }
    })().catch((caught: unknown) => caught);
    await waitUntil(
      () => events.filter((event) => event.type === 'bridge-call').length === 1000,
      '1,000 bridge calls',
    );
    expect(model.signals).toHaveLength(64);
    abort.abort();
    expect(AbortedError.isInstance(await run)).toBe(true);
    expect(model.signals.every((signal) => signal.aborted)).toBe(true);
    const settled = new Set(
      events.filter((event) => event.type === 'bridge-result').map((event) => event.requestId),
    );
    expect(settled.size).toBe(1000);
    expect(model.signals).toHaveLength(64);
    expect(counter.open()).toBe(1);
  });

  test('finalize and failure release child sandboxes too', async () => {
    const counter = countingFactory();
    const llm = createScriptedModel([], {
      fallback: (request) => {
        const first = JSON.stringify(request.messages[0]);
        const last = JSON.stringify(request.messages.at(-1));
        if (first.includes('Query: root')) {
          return last.includes('REPL output')
            ? 'FINAL(root done)'
            : repl(
                'const r = await Promise.allSettled([sub_rlm("ok child", "a"), sub_rlm("bad child", "b")]);',
              );
        }
        if (first.includes('ok child')) return 'FINAL(fine)';
        return { error: new Error('child model failed') };
      },
    });
    await using rlm = createRLM({
      model: llm,
      sandbox: counter.factory,
      session: { persistent: false },
    });
    expect((await rlm.query('root', 'c')).answer).toBe('root done');
    await waitUntil(() => counter.open() === 0, 'no open call');
    expect(counter.created()).toBe(3);
  });

  test('the wall-time budget ends a run that waits too long, with a typed error', async () => {
    const llm = createScriptedModel([], { fallback: () => ({ text: 'x', delayMs: 10_000 }) });
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      budget: { maxWallTimeMs: 100 },
    });
    const error = await rlm.query('q', 'c').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'BudgetExhaustedError', budget: 'wallTime' });
  });

  test('token budget exhaustion carries the partial answer', async () => {
    const llm = createScriptedModel([], {
      fallback: () => ({
        text: `Partial idea.\n${repl('print(1)')}`,
        inputTokens: 60,
        outputTokens: 60,
      }),
    });
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      budget: { maxTokens: 200 },
    });
    const error = await rlm.query('q', 'c').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'BudgetExhaustedError', budget: 'tokens' });
    expect((error as { partialAnswer: string }).partialAnswer).toContain('Partial idea.');
  });
});
