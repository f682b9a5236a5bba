import { describe, expect, test, vi } from 'vitest';
import { createRLM } from './create-rlm.js';
import { ModelCallError } from './errors/model-call-error.js';
import { lastMessageText, repl, submitTool, warningCodes } from './loop-test-helpers.js';
import { collectEvents, createScriptedModel, createScriptedSandbox } from './testing/index.js';

// What the model is shown and what the events say, through createRLM only.

describe('events', () => {
  test('a two-step run emits its events in order', async () => {
    const llm = createScriptedModel([`Look first.\n${repl('look')}`, 'FINAL(bye)']);
    const sandbox = createScriptedSandbox({
      look: ({ print, variables }) => {
        print('hi');
        variables.set('seen', true);
      },
    });
    await using rlm = createRLM({ model: llm, sandbox });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(events.map((event) => event.type)).toEqual([
      'call-start',
      'variables-updated',
      'step-start',
      'model-call',
      'usage',
      'text',
      'code',
      'execution',
      'step-complete',
      'variables-updated',
      'step-start',
      'model-call',
      'usage',
      'text',
      'final',
    ]);
    // Each model call's event carries its whole request and response.
    const calls = events.filter((event) => event.type === 'model-call');
    expect(calls[0]).toMatchObject({
      iteration: 1,
      modelId: 'scripted',
      request: { messages: [{ role: 'user' }] },
      response: { text: `Look first.\n${repl('look')}` },
    });
    expect(calls[0]!.request.system).toContain('context');
    expect(calls[1]).toMatchObject({ iteration: 2, response: { text: 'FINAL(bye)' } });
    expect(calls[1]!.request.messages).toHaveLength(3);
    expect(calls.every((event) => event.durationMs >= 0)).toBe(true);
    expect(events.every((event) => event.callId === 'call-1' && event.depth === 0)).toBe(true);
    expect(events.find((event) => event.type === 'execution')).toMatchObject({
      iteration: 1,
      index: 0,
      output: 'hi',
    });
    const listings = events.flatMap((event) =>
      event.type === 'variables-updated'
        ? [[event.reason, event.variables.map((variable) => variable.name)]]
        : [],
    );
    expect(listings).toEqual([
      ['start', ['context', 'history']],
      ['code-executed', ['context', 'history', 'seen']],
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'final', iterations: 2, source: 'final-text' });
  });

  test('each host call has a bridge-call and one bridge-result with the same id', async () => {
    const llm = createScriptedModel([repl('ask')]);
    const subLlm = createScriptedModel(['the sub answer']);
    const sandbox = createScriptedSandbox({
      ask: async ({ host }) => {
        await host.SUBMIT?.(await host.llm_query?.('what is up?'));
      },
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    const bridge = events.filter(
      (event) => event.type === 'bridge-call' || event.type === 'bridge-result',
    );
    expect(bridge).toEqual([
      expect.objectContaining({
        type: 'bridge-call',
        name: 'llm_query',
        argumentsExcerpt: 'what is up?',
      }),
      expect.objectContaining({
        type: 'bridge-result',
        name: 'llm_query',
        ok: true,
        resultExcerpt: 'the sub answer',
      }),
    ]);
    const [call, result] = bridge;
    if (call?.type !== 'bridge-call' || result?.type !== 'bridge-result')
      throw new Error('no pair');
    expect(result.requestId).toBe(call.requestId);
    const usage = events.flatMap((event) => (event.type === 'usage' ? [event.requestId] : []));
    expect(usage).toEqual([undefined, call.requestId]);
    // The sub-call's model call: the whole prompt and answer, tied to the host call.
    const served = events.filter(
      (event) => event.type === 'model-call' && event.requestId === call.requestId,
    );
    expect(served).toEqual([
      expect.objectContaining({
        iteration: 1,
        request: expect.objectContaining({
          messages: [{ role: 'user', content: 'what is up?' }],
          singleUse: true,
        }),
        response: expect.objectContaining({ text: 'the sub answer' }),
      }),
    ]);
  });

  test('breaking out of the event stream aborts the run and releases its sandbox', async () => {
    const subLlm = createScriptedModel([{ text: 'too late', delayMs: 60_000 }]);
    const llm = createScriptedModel([repl('wait')]);
    const sandbox = createScriptedSandbox({
      wait: async ({ host }) => {
        await host.llm_query?.('slow');
      },
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox });
    for await (const event of rlm.queryStream('q', 'c')) if (event.type === 'bridge-call') break;
    await vi.waitFor(() => expect(sandbox.sandboxes[0]?.disposed).toBe(true), {
      timeout: 30_000,
    });
  });
});

describe('what the model is shown', () => {
  test('an execution error is an event and feedback: output first, then the error; the loop recovers', async () => {
    const llm = createScriptedModel([
      repl('broken'),
      (request) => {
        expect(lastMessageText(request)).toMatch(/partial line\nTypeError: boom/);
        return 'FINAL(recovered)';
      },
    ]);
    const sandbox = createScriptedSandbox({
      broken: ({ print }) => {
        print('partial line');
        throw new TypeError('boom');
      },
    });
    await using rlm = createRLM({ model: llm, sandbox });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(events.find((event) => event.type === 'execution')).toMatchObject({
      output: expect.stringContaining('partial line'),
      error: 'TypeError: boom',
    });
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'recovered' });
  });

  test('long output keeps its true length; a dump of the context is redacted', async () => {
    const context = 'x'.repeat(400_000);
    const llm = createScriptedModel([
      repl('long'),
      (request) => {
        expect(lastMessageText(request)).toContain('the output was 50000 characters');
        return repl('dump');
      },
      (request) => {
        expect(lastMessageText(request)).toContain(
          '[redacted: 400000 characters copied verbatim from context.slice(0, 400000);',
        );
        expect(lastMessageText(request)).not.toContain('xxxxxxxxxx');
        return 'FINAL(done)';
      },
    ]);
    const sandbox = createScriptedSandbox({
      long: () => 'y'.repeat(50_000),
      dump: ({ variables }) => String(variables.get('context')),
    });
    await using rlm = createRLM({ model: llm, sandbox, limits: { maxOutputChars: 1_000 } });
    expect((await rlm.query('q', context)).answer).toBe('done');
    for (const request of llm.requests) expect(JSON.stringify(request)).not.toContain(context);
  });

  test('code blocks past maxCodeBlocksPerResponse do not run, with a warning and a note', async () => {
    const llm = createScriptedModel([
      [repl('one'), repl('two'), repl('three')].join('\n'),
      (request) => {
        expect(lastMessageText(request)).toMatch(/1 code block.*not run|not run/i);
        return 'FINAL(ok)';
      },
    ]);
    const sandbox = createScriptedSandbox({ one: () => '1', two: () => '2', three: () => '3' });
    await using rlm = createRLM({ model: llm, sandbox, limits: { maxCodeBlocksPerResponse: 2 } });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(sandbox.sandboxes[0]?.executions).toEqual(['one', 'two']);
    expect(warningCodes(events)).toEqual(['code-blocks-not-run']);
  });

  test('a provider that refuses tools: one warning, then the text protocol for the rest of the run', async () => {
    const refusal = new ModelCallError('tools are not supported by this model', {
      status: 400,
      reason: 'tools-unsupported',
    });
    const llm = createScriptedModel(
      [
        (request) => (request.tools ? { error: refusal } : 'unexpected'),
        (request) => {
          expect(request.tools).toBeUndefined();
          expect(request.system).toContain('FINAL(');
          return repl('noop');
        },
        (request) => {
          expect(request.tools).toBeUndefined();
          return 'FINAL(text mode)';
        },
      ],
      { supportsTools: true },
    );
    await using rlm = createRLM({ model: llm, sandbox: createScriptedSandbox({ noop: () => {} }) });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(warningCodes(events)).toEqual(['tools-unsupported']);
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'text mode' });
    expect(llm.requests).toHaveLength(3);
  });

  test('any other model error fails the run with it', async () => {
    const llm = createScriptedModel(
      [{ error: new ModelCallError('overloaded', { status: 529 }) }],
      {
        supportsTools: true,
      },
    );
    await using rlm = createRLM({ model: llm, sandbox: createScriptedSandbox({}) });
    const { events, error } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(ModelCallError.isInstance(error)).toBe(true);
    expect(warningCodes(events)).toEqual([]);
  });

  test('SHOW_VARS lists the variables the code made', async () => {
    const llm = createScriptedModel([repl('show')]);
    const sandbox = createScriptedSandbox({
      show: async ({ host, variables }) => {
        variables.set('rows', [1, 2, 3]);
        await host.SUBMIT?.(await host.SHOW_VARS?.());
      },
    });
    await using rlm = createRLM({ model: llm, sandbox });
    const listing = String((await rlm.query('q', 'c')).answer);
    expect(listing).toMatch(/^- context \(string/m);
    expect(listing).toMatch(/^- rows \(array, size 3\)/m);
  });
});

describe('host tools', () => {
  test('model code calls a host tool; its input is checked against the schema first', async () => {
    const received: unknown[] = [];
    const refusals: unknown[] = [];
    const llm = createScriptedModel([repl('use tool'), submitTool({ variable: 'sum' })], {
      supportsTools: true,
    });
    const sandbox = createScriptedSandbox({
      'use tool': async ({ host, variables }) => {
        refusals.push(await host.add?.({ a: 'one' }).catch((error: Error) => error.message));
        variables.set('sum', await host.add?.({ a: 1, b: 2 }));
      },
    });
    await using rlm = createRLM({
      model: llm,
      sandbox,
      tools: [
        {
          name: 'add',
          description: 'Adds a and b.',
          inputSchema: {
            type: 'object',
            properties: { a: { type: 'number' }, b: { type: 'number' } },
            required: ['a', 'b'],
          },
          execute: (input) => {
            received.push(input);
            const { a, b } = input as { a: number; b: number };
            return a + b;
          },
        },
      ],
    });
    expect((await rlm.query('q', 'c')).answer).toBe(3);
    expect(received).toEqual([{ a: 1, b: 2 }]);
    expect(llm.requests[0]?.system).toContain('Adds a and b.');
    expect(refusals).toEqual([expect.stringMatching(/add/)]);
  });
});

describe('persistent sessions', () => {
  test('one sandbox across queries, with context_n and history', async () => {
    const llm = createScriptedModel([repl('first'), repl('second')]);
    const sandbox = createScriptedSandbox({
      first: async ({ host, variables }) => {
        variables.set('kept', String(variables.get('context')).length);
        await host.SUBMIT?.(variables.get('kept'));
      },
      second: async ({ host, variables }) => {
        const history = variables.get('history') as { answer: unknown }[];
        const seen = [
          variables.get('kept'),
          variables.get('context_0'),
          variables.get('context_1'),
          history[0]?.answer,
        ];
        await host.SUBMIT?.(seen.join(','));
      },
    });
    await using rlm = createRLM({ model: llm, sandbox, persistent: true });
    expect((await rlm.query('first', 'abc')).answer).toBe(3);
    expect((await rlm.query('second', 'de')).answer).toBe('3,abc,de,3');
    expect(sandbox.sandboxes).toHaveLength(1);
    expect(
      lastMessageText({ ...llm.requests[1]!, messages: llm.requests[1]!.messages.slice(0, 1) }),
    ).toContain('earlier queries in this session: 1');
  });

  test('reset() disposes the session sandbox; the next query starts a fresh one with no history', async () => {
    const llm = createScriptedModel([repl('keep'), repl('look')]);
    const sandbox = createScriptedSandbox({
      keep: async ({ host, variables }) => {
        variables.set('kept', 1);
        await host.SUBMIT?.('one');
      },
      look: async ({ host, variables }) => {
        // history holds only the query running now.
        const history = variables.get('history') as { query: string }[];
        await host.SUBMIT?.([
          variables.has('kept'),
          variables.has('context_1'),
          history.map((entry) => entry.query),
        ]);
      },
    });
    await using rlm = createRLM({ model: llm, sandbox, persistent: true });
    await rlm.query('first', 'a');
    await rlm.reset();
    expect(sandbox.sandboxes[0]?.disposed).toBe(true);
    expect((await rlm.query('second', 'b')).answer).toEqual([false, false, ['second']]);
    expect(sandbox.sandboxes).toHaveLength(2);
  });
});
