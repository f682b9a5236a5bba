import { createRLM, defineTool } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { toJsonSchema, toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { sandboxFactory as sandbox } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const submit = (input: unknown, id = 'toolu_1') => ({
  toolCalls: [{ id, name: 'SUBMIT', input }],
});

describe('Standard Schemas through the loop, in the sandbox under test (SES by default)', () => {
  test('a zod tool: the model sees its JSON Schema, execute gets the parsed value, bad input is catchable with each issue', async () => {
    const seen: unknown[] = [];
    const schedule = defineTool({
      name: 'schedule',
      description: 'Books a slot.',
      inputSchema: z.object({
        minutes: z.coerce.number().int().positive(),
        attendees: z.array(z.string().email()).max(20),
        room: z.string().transform((room) => room.toUpperCase()),
      }),
      execute: (input) => {
        expectTypeOf(input.minutes).toEqualTypeOf<number>();
        seen.push(input);
        return { booked: `${input.room}:${input.minutes}` };
      },
    });
    const llm = createScriptedModel([
      repl(
        [
          'const ok = await schedule({ minutes: "30", attendees: ["a@b.co"], room: "blue" });',
          'let bad;',
          'const attendees = ["a@b.co", "x", "y", "z", "w", "v", "u", "t"];',
          'try { await schedule({ minutes: -1, attendees, room: 1 }); }',
          'catch (error) { bad = { name: error.name, message: error.message }; }',
          'SUBMIT({ ok, bad });',
        ].join('\n'),
      ),
    ]);
    await using rlm = createRLM({ model: llm, sandbox, tools: [schedule] });
    const result = await rlm.query('book it', 'c');
    expect(seen).toEqual([{ minutes: 30, attendees: ['a@b.co'], room: 'BLUE' }]);
    const answer = result.answer as { ok: unknown; bad: { name: string; message: string } };
    expect(answer.ok).toEqual({ booked: 'BLUE:30' });
    expect(answer.bad.name).toBe('Error');
    const lines = answer.bad.message.split('\n');
    expect(lines[0]).toBe('schedule: invalid input:');
    expect(lines).toContainEqual(expect.stringMatching(/^#\/minutes: /));
    // Nine issues: five shown, one line each, and the rest counted.
    expect(lines.slice(1, 6)).toContainEqual(expect.stringMatching(/^#\/attendees\/1: .*email/));
    expect(lines.slice(1)).toHaveLength(6);
    expect(lines.at(-1)).toBe('(and 4 more issues)');
    const system = llm.requests[0]!.system!;
    expect(system).toContain('await schedule(input');
    const shown = system
      .split('\n')
      .find((line) => line.trim().startsWith('input schema: '))!
      .trim()
      .slice('input schema: '.length);
    expect(JSON.parse(shown)).toMatchObject({
      type: 'object',
      properties: {
        minutes: { type: 'integer' },
        attendees: { type: 'array', maxItems: 20, items: { format: 'email' } },
        room: { type: 'string' },
      },
      required: ['minutes', 'attendees', 'room'],
    });
  });

  test('an arktype outputSchema: a wrong SUBMIT goes back with the issues, the right one is the typed answer', async () => {
    const llm = createScriptedModel(
      [
        submit({ value: { total: 'many', items: ['a'] } }),
        (request) => {
          const feedback = JSON.stringify(request.messages.at(-1));
          expect(feedback).toContain('does not match the output schema');
          expect(feedback).toContain('#/total: ');
          return submit({ value: { total: 2, items: ['a', 'b'] } }, 'toolu_2');
        },
      ],
      { supportsTools: true },
    );
    await using rlm = createRLM({
      model: llm,
      sandbox,
      outputSchema: type({ total: 'number.integer', items: 'string[]' }),
    });
    const result = await rlm.query('count', 'c');
    expectTypeOf(result.answer).toEqualTypeOf<{ total: number; items: string[] }>();
    expect(result.answer).toEqual({ total: 2, items: ['a', 'b'] });
    expect(llm.requests[0]!.tools![0]!.inputSchema).toMatchObject({
      properties: {
        value: {
          type: 'object',
          properties: { total: { type: 'integer' }, items: { type: 'array' } },
        },
      },
    });
  });

  test('a valibot outputSchema checks a FINAL text answer read as JSON; async tool validation is awaited', async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Finds a user.',
      // An async check has no JSON form: the pair names the JSON Schema the model sees.
      inputSchema: {
        schema: v.objectAsync({
          id: v.pipeAsync(
            v.string(),
            v.checkAsync(async (id) => id.startsWith('u-'), 'no such user'),
          ),
        }),
        jsonSchema: toJsonSchema(v.object({ id: v.string() })),
      },
      execute: ({ id }) => ({ id, name: `user ${id}` }),
    });
    const llm = createScriptedModel([
      repl(
        [
          'let missing; try { await lookup({ id: "x" }); } catch (error) { missing = error.message; }',
          'const user = await lookup({ id: "u-7" });',
          'print(missing);',
        ].join('\n'),
      ),
      (request) => {
        expect(JSON.stringify(request.messages.at(-1))).toContain('#/id: no such user');
        return 'FINAL({"name": 5})';
      },
      (request) => {
        expect(JSON.stringify(request.messages.at(-1))).toContain('#/name: ');
        return 'FINAL_VAR(user)';
      },
    ]);
    await using rlm = createRLM({
      model: llm,
      sandbox,
      tools: [lookup],
      outputSchema: toStandardJsonSchema(v.object({ id: v.string(), name: v.string() })),
    });
    const result = await rlm.query('who', 'c');
    expectTypeOf(result.answer).toEqualTypeOf<{ id: string; name: string }>();
    expect(result.answer).toEqual({ id: 'u-7', name: 'user u-7' });
  });

  test('a schema without a JSON form is refused at createRLM with what to do', () => {
    const llm = createScriptedModel([]);
    expect(() =>
      createRLM({
        model: llm,
        sandbox,
        tools: [
          defineTool({
            name: 'plain',
            description: 'A bare valibot schema',
            inputSchema: v.object({ n: v.number() }) as never,
            execute: () => null,
          }),
        ],
      }),
    ).toThrow(/tool plain: inputSchema: this valibot schema has no JSON Schema/);
  });
});
