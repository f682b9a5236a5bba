import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { createRLM } from '../../create-rlm.js';
import { defineTool } from './define-tool.js';
import type { HostTool, RLMResult } from '../../rlm-settings.js';
import type { SandboxFactory } from '../../sandbox.js';
import type { InferSchemaOutput } from '../../schema.js';
import { createScriptedModel } from '../../testing/scripted-model.js';

// Never called: these tests only build instances (no query runs, so no sandbox is made).
const sandbox: SandboxFactory = () => Promise.reject(new Error('not used'));
const llm = createScriptedModel([]);

describe('types flow from Standard Schemas', () => {
  test('defineTool types execute input as the schema output, per library', () => {
    const zodTool = defineTool({
      name: 'resize',
      description: 'Resizes',
      inputSchema: z.object({ width: z.number(), unit: z.enum(['px', 'em']).default('px') }),
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ width: number; unit: 'px' | 'em' }>();
        return input.width;
      },
    });
    const arkTool = defineTool({
      name: 'tag',
      description: 'Tags',
      inputSchema: type({ id: 'string', 'tags?': 'string[]' }),
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ id: string; tags?: string[] }>();
        return input.id;
      },
    });
    const valibotTool = defineTool({
      name: 'sum',
      description: 'Sums',
      inputSchema: toStandardJsonSchema(v.object({ values: v.array(v.number()) })),
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ values: number[] }>();
        return input.values.length;
      },
    });
    const pairTool = defineTool({
      name: 'pair',
      description: 'A schema with its JSON Schema',
      inputSchema: { schema: v.object({ n: v.number() }), jsonSchema: { type: 'object' } },
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ n: number }>();
        return input.n;
      },
    });
    const jsonTool = defineTool({
      name: 'raw',
      description: 'A JSON Schema tool',
      inputSchema: { type: 'object' },
      execute: (input) => {
        expectTypeOf(input).toBeUnknown();
        return null;
      },
    });
    expectTypeOf(zodTool).toEqualTypeOf<HostTool<{ width: number; unit: 'px' | 'em' }>>();
    // Every typed tool is a HostTool, so tools of different inputs share one array.
    const rlm = createRLM({
      model: llm,
      sandbox,
      tools: [zodTool, arkTool, valibotTool, pairTool, jsonTool],
    });
    expect(rlm).toBeDefined();
  });

  test('a wrongly typed execute does not compile', () => {
    defineTool({
      name: 'bad',
      description: 'Bad',
      inputSchema: z.object({ n: z.number() }),
      // @ts-expect-error n is a number, not a string
      execute: (input: { n: string }) => input.n,
    });
    expect(true).toBe(true);
  });

  test("query()'s answer is the output schema's output type", () => {
    const answerSchema = z.object({ total: z.number(), items: z.array(z.string()) });
    const typed = createRLM({ model: llm, sandbox, outputSchema: answerSchema });
    expectTypeOf(typed.query).returns.resolves.toEqualTypeOf<
      RLMResult<{ total: number; items: string[] }>
    >();
    const ark = createRLM({ model: llm, sandbox, outputSchema: type({ ok: 'boolean' }) });
    expectTypeOf(ark.query).returns.resolves.toHaveProperty('answer').toEqualTypeOf<{
      ok: boolean;
    }>();
    const untyped = createRLM({ model: llm, sandbox });
    expectTypeOf(untyped.query).returns.resolves.toHaveProperty('answer').toBeUnknown();
    const json = createRLM({ model: llm, sandbox, outputSchema: { type: 'object' } });
    expectTypeOf(json.query).returns.resolves.toHaveProperty('answer').toBeUnknown();
    expect(typed).toBeDefined();
  });

  test('InferSchemaOutput reads transforms (output, not input)', () => {
    const schema = z.string().transform((text) => text.length);
    expectTypeOf<InferSchemaOutput<typeof schema>>().toEqualTypeOf<number>();
    expectTypeOf<InferSchemaOutput<undefined>>().toBeUnknown();
    expect(true).toBe(true);
  });
});
