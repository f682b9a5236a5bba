import { describe, expect, test } from 'vitest';
import { createRLM } from './create-rlm.js';
import { lastMessageText, repl, submitTool, warningCodes } from './loop-test-helpers.js';
import { collectEvents, createScriptedModel, createScriptedSandbox } from './testing/index.js';

// The loop's finishing rules (seed 001's priority: SUBMIT tool, then SUBMIT / FINAL_VAR from
// code, then FINAL text, then continue), through createRLM only, in milliseconds.

describe('which answer wins', () => {
  test('the SUBMIT tool beats code in the same response: the code never runs, with a warning', async () => {
    const llm = createScriptedModel(
      [{ text: repl('never'), ...submitTool({ answer: 'from the tool' }) }],
      { supportsTools: true },
    );
    const sandbox = createScriptedSandbox({ never: () => 'ran' });
    await using rlm = createRLM({ model: llm, sandbox });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(sandbox.sandboxes[0]?.executions).toEqual([]);
    expect(warningCodes(events)).toEqual(['submit-with-code']);
    expect(events.at(-1)).toMatchObject({
      type: 'final',
      answer: 'from the tool',
      source: 'submit-tool',
    });
  });

  test('SUBMIT from code beats FINAL text in the same response, and later blocks do not run', async () => {
    const llm = createScriptedModel([`${repl('submit')}\n${repl('after')}\nFINAL(from the text)`]);
    const sandbox = createScriptedSandbox({
      submit: async ({ host }) => {
        await host.SUBMIT?.({ from: 'code' });
      },
      after: () => 'must not run',
    });
    await using rlm = createRLM({ model: llm, sandbox });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(sandbox.sandboxes[0]?.executions).toEqual(['submit']);
    expect(events.at(-1)).toMatchObject({
      type: 'final',
      answer: { from: 'code' },
      source: 'submit-code',
    });
  });

  test('code runs before FINAL_VAR text in the same response, which then reads its variable', async () => {
    const llm = createScriptedModel([`${repl('define')}\nFINAL_VAR(counts)`]);
    const sandbox = createScriptedSandbox({ define: { variables: { counts: { a: 1, b: [2] } } } });
    await using rlm = createRLM({ model: llm, sandbox });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toEqual({ a: 1, b: [2] });
    expect(result.iterations).toBe(1);
  });

  test('FINAL text finishes; FINAL inside a fence or mid-sentence does not', async () => {
    const llm = createScriptedModel([
      '```text\nFINAL(fenced)\n```\nI will write FINAL(later) once I know.',
      'Done.\nFINAL(right)',
    ]);
    await using rlm = createRLM({ model: llm, sandbox: createScriptedSandbox({}) });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'right', source: 'final-text' });
    expect(llm.requests).toHaveLength(2);
  });

  test('neither code nor an answer: the model is told to continue', async () => {
    const llm = createScriptedModel(['Let me think.', 'FINAL(ok)']);
    await using rlm = createRLM({ model: llm, sandbox: createScriptedSandbox({}) });
    expect((await rlm.query('q', 'c')).answer).toBe('ok');
    expect(lastMessageText(llm.requests[1]!)).toMatch(/^Continue: run code/);
  });

  test('FINAL_VAR called from code returns the variable value', async () => {
    const llm = createScriptedModel([repl('final var')]);
    const sandbox = createScriptedSandbox({
      'final var': async ({ host, variables }) => {
        variables.set('report', 'long report');
        await host.FINAL_VAR?.('report');
      },
    });
    await using rlm = createRLM({ model: llm, sandbox });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(events.at(-1)).toMatchObject({ answer: 'long report', source: 'final-var' });
  });

  test('SUBMIT and FINAL_VAR with bad arguments end their block; the model is told why and goes on', async () => {
    const llm = createScriptedModel([
      repl('bad submit'),
      (request) => {
        expect(lastMessageText(request)).toContain(
          'REPL output:\nbefore\nError: SUBMIT(value) needs a value; got undefined. Nothing was submitted; the block ended at that call.',
        );
        return repl('bad final');
      },
      (request) => {
        expect(lastMessageText(request)).toMatch(
          /Error: FINAL_VAR\(name\) needs the variable name as a string.*Nothing was submitted/,
        );
        return 'FINAL(after)';
      },
    ]);
    const sandbox = createScriptedSandbox({
      'bad submit': async ({ host, print }) => {
        print('before');
        await host.SUBMIT?.();
        print('never printed');
      },
      'bad final': async ({ host }) => {
        await host.FINAL_VAR?.(42);
      },
    });
    await using rlm = createRLM({ model: llm, sandbox });
    expect((await rlm.query('q', 'c')).answer).toBe('after');
    expect(llm.requests).toHaveLength(3);
  });
});

describe('SUBMIT tool inputs', () => {
  test('{variable} returns a sandbox variable that never crosses the token boundary', async () => {
    const report = 'r'.repeat(100_000);
    const llm = createScriptedModel([repl('build'), submitTool({ variable: 'report' })], {
      supportsTools: true,
    });
    const sandbox = createScriptedSandbox({ build: { variables: { report } } });
    await using rlm = createRLM({ model: llm, sandbox });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe(report);
    expect(llm.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['SUBMIT']);
    for (const request of llm.requests) expect(JSON.stringify(request)).not.toContain('rrrrrrrr');
  });

  test('a variable that does not exist goes back to the model, which fixes it', async () => {
    const llm = createScriptedModel(
      [
        submitTool({ variable: 'missing' }),
        (request) => {
          expect(lastMessageText(request)).toContain('Could not return variable "missing"');
          return submitTool({ answer: 'fixed' }, 'toolu_2');
        },
      ],
      { supportsTools: true },
    );
    await using rlm = createRLM({ model: llm, sandbox: createScriptedSandbox({}) });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(warningCodes(events)).toEqual(['answer-rejected']);
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'fixed' });
  });

  test('an unreadable SUBMIT payload warns, answers the tool call with an error and goes on', async () => {
    const llm = createScriptedModel(
      [
        {
          toolCalls: [{ id: 'toolu_cut', name: 'SUBMIT', input: undefined, inputError: 'cut off' }],
          stopReason: 'max-tokens',
        },
        (request) => {
          const results = request.messages.at(-1)?.content;
          expect(results).toContainEqual(
            expect.objectContaining({
              type: 'tool-result',
              toolCallId: 'toolu_cut',
              isError: true,
            }),
          );
          return submitTool({ answer: 'short' }, 'toolu_2');
        },
      ],
      { supportsTools: true },
    );
    await using rlm = createRLM({ model: llm, sandbox: createScriptedSandbox({}) });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    // Stopped at max_tokens: the model is also told its response was cut.
    expect(warningCodes(events)).toEqual(['submit-unreadable', 'response-cut']);
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'short' });
  });
});

describe('outputSchema', () => {
  const outputSchema = {
    type: 'object',
    properties: { count: { type: 'integer' } },
    required: ['count'],
  };

  test('a SUBMIT value that does not match goes back as the tool call error; the fix is accepted', async () => {
    const llm = createScriptedModel(
      [
        submitTool({ value: { count: 'three' } }),
        (request) => {
          const results = request.messages.at(-1)?.content;
          expect(results).toContainEqual(
            expect.objectContaining({
              toolCallId: 'toolu_1',
              isError: true,
              content: expect.stringContaining('does not match the output schema'),
            }),
          );
          return submitTool({ value: { count: 3 } }, 'toolu_2');
        },
      ],
      { supportsTools: true },
    );
    await using rlm = createRLM({ model: llm, sandbox: createScriptedSandbox({}), outputSchema });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toEqual({ count: 3 });
    expect(llm.requests[0]?.tools?.[0]?.inputSchema).toMatchObject({
      properties: { value: outputSchema },
    });
  });

  test('FINAL text is read as JSON and checked; a mismatch is a note to the model', async () => {
    const llm = createScriptedModel([
      'FINAL({"count": "x"})',
      (request) => {
        expect(lastMessageText(request)).toContain('does not match the output schema');
        return 'FINAL({"count": 2})';
      },
    ]);
    await using rlm = createRLM({ model: llm, sandbox: createScriptedSandbox({}), outputSchema });
    expect((await rlm.query('q', 'c')).answer).toEqual({ count: 2 });
  });

  test('a variable returned by SUBMIT from code is checked too', async () => {
    const llm = createScriptedModel([repl('wrong'), repl('right')]);
    const sandbox = createScriptedSandbox({
      wrong: async ({ host }) => {
        await host.SUBMIT?.({ count: 1.5 });
      },
      right: async ({ host }) => {
        await host.SUBMIT?.({ count: 1 });
      },
    });
    await using rlm = createRLM({ model: llm, sandbox, outputSchema });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(warningCodes(events)).toEqual(['answer-rejected']);
    expect(events.at(-1)).toMatchObject({ answer: { count: 1 }, iterations: 2 });
  });
});

describe('the stall rule', () => {
  test('stallLimit empty responses in a row go straight to the forced final prompt', async () => {
    const llm = createScriptedModel(['', '  ', 'FINAL(after stall)'], { supportsTools: true });
    await using rlm = createRLM({
      model: llm,
      sandbox: createScriptedSandbox({}),
      limits: { stallLimit: 2 },
    });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(warningCodes(events)).toEqual(['empty-response', 'stall']);
    expect(events.at(-1)).toMatchObject({
      type: 'final',
      answer: 'after stall',
      source: 'extract',
    });
    expect(llm.requests).toHaveLength(3);
    expect(llm.requests[2]?.toolChoice).toEqual({ tool: 'SUBMIT' });
    expect(lastMessageText(llm.requests[2]!)).toContain('You have used all of your iterations');
  });

  test('a non-empty response resets the streak', async () => {
    const llm = createScriptedModel(['', 'thinking', '', 'FINAL(no stall)']);
    await using rlm = createRLM({
      model: llm,
      sandbox: createScriptedSandbox({}),
      limits: { stallLimit: 2 },
    });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(warningCodes(events)).not.toContain('stall');
    expect(events.at(-1)).toMatchObject({ answer: 'no stall', source: 'final-text' });
  });
});
