import { createRLM, ModelCallError, NoFinalAnswerError, type RlmEvent } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const submit = (input: unknown, id = 'toolu_1') => ({
  toolCalls: [{ id, name: 'SUBMIT', input }],
});

async function collect(stream: AsyncIterable<RlmEvent>): Promise<RlmEvent[]> {
  const events: RlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('SUBMIT, the primary way to finish', () => {
  test('models with tools are offered the SUBMIT tool; {answer} finishes', async () => {
    const llm = createScriptedModel([submit({ answer: 'forty-two' })], { supportsTools: true });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe('forty-two');
    expect(llm.requests[0]!.tools?.map((tool) => tool.name)).toEqual(['SUBMIT']);
    expect(llm.requests[0]!.system).toContain('SUBMIT tool');
  });

  test('{variable} returns a sandbox variable without it crossing the token boundary', async () => {
    const llm = createScriptedModel(
      [repl('const report = "r".repeat(100000);'), submit({ variable: 'report' })],
      { supportsTools: true },
    );
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe('r'.repeat(100_000));
  });

  test('{value} with an output schema is validated; a mismatch goes back to the model to fix', async () => {
    const llm = createScriptedModel(
      [
        submit({ value: { count: 'three' } }),
        (request) => {
          const feedback = JSON.stringify(request.messages.at(-1));
          expect(feedback).toContain('does not match the output schema');
          expect(feedback).toContain('toolu_1');
          return submit({ value: { count: 3 } }, 'toolu_2');
        },
      ],
      { supportsTools: true },
    );
    const outputSchema = {
      type: 'object',
      properties: { count: { type: 'integer' } },
      required: ['count'],
    };
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory, outputSchema });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toEqual({ count: 3 });
    expect(llm.requests[0]!.tools![0]!.inputSchema).toMatchObject({
      properties: { value: outputSchema },
    });
  });

  test('{variable} with an output schema validates the variable value', async () => {
    const llm = createScriptedModel(
      [
        repl('const rows = [{ id: 1 }, { id: "x" }];'),
        submit({ variable: 'rows' }),
        repl('const fixed = [{ id: 1 }, { id: 2 }];'),
        submit({ variable: 'fixed' }, 'toolu_2'),
      ],
      { supportsTools: true },
    );
    const outputSchema = {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'number' } } },
    };
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory, outputSchema });
    const events = await collect(rlm.queryStream('q', 'c'));
    expect(events.find((event) => event.type === 'final')).toMatchObject({
      answer: [{ id: 1 }, { id: 2 }],
    });
    expect(
      events.some((event) => event.type === 'warning' && event.code === 'answer-rejected'),
    ).toBe(true);
  });

  test('SUBMIT together with code finalizes, ignores the code and warns', async () => {
    const llm = createScriptedModel(
      [{ text: repl('print("never")'), ...submit({ answer: 'done' }) }],
      { supportsTools: true },
    );
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const events = await collect(rlm.queryStream('q', 'c'));
    expect(events.some((event) => event.type === 'code')).toBe(false);
    expect(events.find((event) => event.type === 'warning')).toMatchObject({
      code: 'submit-with-code',
    });
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'done', source: 'submit-tool' });
  });

  test('priority: code runs before FINAL text in the same response', async () => {
    const llm = createScriptedModel([`${repl('const v = 7;')}\nFINAL_VAR(v)`], {
      supportsTools: true,
    });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    expect((await rlm.query('q', 'c')).answer).toBe(7);
  });

  test('a model that ignores SUBMIT gets the extract prompt with the tool forced', async () => {
    const llm = createScriptedModel(
      [repl('const guess = "g";'), repl('print(guess)'), submit({ variable: 'guess' })],
      { supportsTools: true },
    );
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      limits: { maxIterations: 2 },
    });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe('g');
    const extract = llm.requests[2]!;
    expect(extract.toolChoice).toEqual({ tool: 'SUBMIT' });
    expect(JSON.stringify(extract.messages.at(-1))).toContain('guess (string');
  });

  test('a provider that rejects tools: warning, then the text protocol', async () => {
    const llm = createScriptedModel(
      [
        (request) => ({
          error: request.tools
            ? new ModelCallError('tools are not supported by this model', {
                status: 400,
                reason: 'tools-unsupported',
              })
            : new Error('unexpected'),
        }),
        (request) => {
          expect(request.tools).toBeUndefined();
          expect(request.system).toContain('FINAL(');
          return 'FINAL(text mode)';
        },
      ],
      { supportsTools: true },
    );
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const events = await collect(rlm.queryStream('q', 'c'));
    expect(events.find((event) => event.type === 'warning')).toMatchObject({
      code: 'tools-unsupported',
    });
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'text mode' });
  });

  test('an undecodable SUBMIT payload (cut off at max_tokens): warning, the model is told, the loop goes on', async () => {
    const llm = createScriptedModel(
      [
        {
          toolCalls: [
            {
              id: 'toolu_cut',
              name: 'SUBMIT',
              input: undefined,
              inputError: 'the tool input was cut off by max_tokens',
            },
          ],
          stopReason: 'max-tokens',
        },
        (request) => {
          const last = request.messages.at(-1)!;
          expect(JSON.stringify(last)).toContain('toolu_cut');
          expect(JSON.stringify(last)).toContain('variable');
          return submit({ answer: 'short' }, 'toolu_2');
        },
      ],
      { supportsTools: true },
    );
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const events = await collect(rlm.queryStream('q', 'c'));
    expect(events.find((event) => event.type === 'warning')).toMatchObject({
      code: 'submit-unreadable',
    });
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'short' });
  });

  test('forced extract without SUBMIT: NoFinalAnswerError with diagnostics and the partial answer', async () => {
    const llm = createScriptedModel([repl('print(1)'), 'Here is my partial take.'], {
      supportsTools: true,
    });
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      limits: { maxIterations: 1 },
    });
    const error = (await rlm
      .query('q', 'c')
      .catch((caught: unknown) => caught)) as NoFinalAnswerError;
    expect(NoFinalAnswerError.isInstance(error)).toBe(true);
    expect(error.partialAnswer).toBe('Here is my partial take.');
    expect(error.diagnostics.reason).toContain('forced final prompt');
  });

  test('empty responses in a row are a stall: straight to extract; nothing empty is sent back', async () => {
    const llm = createScriptedModel(['', '   ', '\n', 'FINAL(after stall)'], {
      supportsTools: true,
    });
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      limits: { maxIterations: 20 },
    });
    const events = await collect(rlm.queryStream('q', 'c'));
    expect(events.some((event) => event.type === 'warning' && event.code === 'stall')).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'after stall' });
    expect(llm.requests).toHaveLength(4);
    for (const request of llm.requests) {
      for (const message of request.messages) {
        const parts =
          typeof message.content === 'string'
            ? [{ type: 'text', text: message.content }]
            : message.content;
        for (const part of parts) {
          if (part.type === 'text') expect(part.text.trim().length).toBeGreaterThan(0);
        }
      }
    }
  });
});
