import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { formatIssues, maxIssueChars, maxShownIssues, SchemaCheck } from './schema-check.js';

const zodPoint = z.object({ x: z.number(), label: z.string().optional() });
const arkPoint = type({ x: 'number', 'label?': 'string' });
const valibotPoint = v.object({ x: v.number(), label: v.optional(v.string()) });

describe('SchemaCheck with each schema library', () => {
  const cases = [
    ['zod', zodPoint],
    ['arktype', arkPoint],
    ['valibot (toStandardJsonSchema)', toStandardJsonSchema(valibotPoint)],
  ] as const;

  test.each(cases)(
    '%s: the model sees its JSON Schema, without the dialect marker',
    (_, schema) => {
      const check = new SchemaCheck(schema, 'outputSchema');
      expect(check.schema).toMatchObject({
        type: 'object',
        properties: { x: { type: 'number' }, label: { type: 'string' } },
        required: ['x'],
      });
      expect(check.schema).not.toHaveProperty('$schema');
    },
  );

  test.each(cases)(
    '%s: accepts a conforming value and rejects a wrong one with its path',
    async (_, schema) => {
      const check = new SchemaCheck(schema, 'outputSchema');
      await expect(check.check({ x: 1 })).resolves.toEqual({ ok: true, value: { x: 1 } });
      const verdict = await check.check({ x: 'one' });
      expect(verdict.ok).toBe(false);
      if (verdict.ok) return;
      expect(verdict.issues).toHaveLength(1);
      expect(verdict.issues[0]).toMatch(/^#\/x: /);
    },
  );
});

describe('SchemaCheck', () => {
  test('the accepted value is the Standard Schema output: coerced and transformed', async () => {
    const check = new SchemaCheck(
      z.object({ n: z.coerce.number(), tags: z.string().transform((text) => text.split(',')) }),
      'outputSchema',
    );
    await expect(check.check({ n: '3', tags: 'a,b' })).resolves.toEqual({
      ok: true,
      value: { n: 3, tags: ['a', 'b'] },
    });
  });

  test('an async refinement is awaited', async () => {
    const check = new SchemaCheck(
      z.object({ id: z.string().refine(async (id) => id.startsWith('u-'), 'unknown user') }),
      'tool find: inputSchema',
    );
    await expect(check.check({ id: 'u-1' })).resolves.toMatchObject({ ok: true });
    await expect(check.check({ id: 'x' })).resolves.toEqual({
      ok: false,
      issues: ['#/id: unknown user'],
    });
  });

  test('a bare valibot schema (no JSON Schema) is refused with what to do; a pair is accepted', async () => {
    expect(() => new SchemaCheck(valibotPoint as never, 'tool plot: inputSchema')).toThrow(
      /tool plot: inputSchema: this valibot schema has no JSON Schema .*\{ schema, jsonSchema \}.*toStandardJsonSchema/,
    );
    const jsonSchema = { type: 'object', properties: { x: { type: 'number' } } };
    const check = new SchemaCheck({ schema: valibotPoint, jsonSchema }, 'outputSchema');
    expect(check.schema).toBe(jsonSchema);
    await expect(check.check({ x: 'no' })).resolves.toMatchObject({ ok: false });
    await expect(check.check({ x: 2 })).resolves.toEqual({ ok: true, value: { x: 2 } });
  });

  test('a schema with no JSON form (a zod date) is refused at construction, naming the setting', () => {
    expect(() => new SchemaCheck(z.object({ when: z.date() }), 'outputSchema')).toThrow(
      /outputSchema: the zod schema cannot be written as JSON Schema .*\{ schema, jsonSchema \}/,
    );
  });

  test('what is no schema at all is refused', () => {
    expect(() => new SchemaCheck('string' as never, 'outputSchema')).toThrow(
      /outputSchema must be a JSON Schema object, a Standard Schema/,
    );
    expect(
      () => new SchemaCheck({ schema: zodPoint, jsonSchema: 'x' } as never, 'outputSchema'),
    ).toThrow(/needs jsonSchema/);
  });

  test('a validator that throws is an issue, not a rejection', async () => {
    const throwing = {
      '~standard': {
        version: 1 as const,
        vendor: 'custom',
        validate: () => {
          throw new Error('boom');
        },
      },
    };
    const check = new SchemaCheck({ schema: throwing, jsonSchema: {} }, 'outputSchema');
    await expect(check.check(1)).resolves.toEqual({
      ok: false,
      issues: ["#: the schema's validator failed: boom"],
    });
  });

  test('a JSON Schema is still checked by the JSON Schema validator, the value unchanged', async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const check = new SchemaCheck(schema, 'outputSchema');
    expect(check.schema).toBe(schema);
    const value = { n: 1 };
    const accepted = await check.check(value);
    expect(accepted.ok && accepted.value).toBe(value);
    await expect(check.check({ n: 'x' })).resolves.toMatchObject({
      ok: false,
      issues: [expect.stringMatching(/^#\/n: /)],
    });
  });

  test('paths with symbols, numbers and slashes become JSON Pointer fragments', async () => {
    const check = new SchemaCheck(z.object({ 'a/b': z.array(z.number()) }), 'outputSchema');
    const verdict = await check.check({ 'a/b': [1, 'two'] });
    expect(verdict).toMatchObject({ ok: false, issues: [expect.stringMatching(/^#\/a~1b\/1: /)] });
  });
});

describe('formatIssues', () => {
  test('one line per issue, each bounded, the rest counted', () => {
    const issues = Array.from({ length: 12 }, (_, index) => `#/${index}: ${'x'.repeat(500)}\nmore`);
    const lines = formatIssues(issues).split('\n');
    expect(lines).toHaveLength(maxShownIssues + 1);
    for (const line of lines.slice(0, maxShownIssues)) {
      expect(line.length).toBeLessThanOrEqual(maxIssueChars);
    }
    expect(lines.at(-1)).toBe('(and 7 more issues)');
  });
});
