import { type } from 'arktype';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { checkAnswer } from './output-check.js';
import { SchemaCheck } from './schema-check.js';

describe('checkAnswer', () => {
  test('without a schema any answer is accepted as it is', async () => {
    await expect(checkAnswer(undefined, '{"a":1}', 'final-text')).resolves.toEqual({
      answer: '{"a":1}',
    });
  });

  test('a FINAL text answer is read as JSON, then validated and typed by the schema', async () => {
    const schema = new SchemaCheck(z.object({ n: z.coerce.number() }), 'outputSchema');
    await expect(checkAnswer(schema, '{"n":"4"}', 'final-text')).resolves.toEqual({
      answer: { n: 4 },
    });
    // A SUBMIT value is not parsed: a string stays a string.
    await expect(checkAnswer(schema, '{"n":"4"}', 'submit-tool')).resolves.toMatchObject({
      problem: expect.stringContaining('does not match the output schema'),
    });
  });

  test('a rejection lists each issue on its own line, between the verdict and what to do', async () => {
    const schema = new SchemaCheck(
      type({ count: 'number.integer', name: 'string' }),
      'outputSchema',
    );
    const result = await checkAnswer(schema, { count: 1.5, name: 7 }, 'submit-tool');
    expect('problem' in result).toBe(true);
    if (!('problem' in result)) return;
    const lines = result.problem.split('\n');
    expect(lines[0]).toBe('Answer not accepted: it does not match the output schema:');
    expect(lines.slice(1, -1).sort()).toEqual([
      expect.stringMatching(/^#\/count: .*integer/),
      expect.stringMatching(/^#\/name: .*string/),
    ]);
    expect(lines.at(-1)).toBe('Fix it and submit again.');
  });

  test('an answer too deep to walk is refused before the schema sees it', async () => {
    let deep: unknown = 1;
    for (let level = 0; level < 2_000; level += 1) deep = [deep];
    const schema = new SchemaCheck(z.any(), 'outputSchema');
    await expect(checkAnswer(schema, deep, 'submit-tool')).resolves.toMatchObject({
      problem: expect.stringMatching(/^Answer not accepted.*\n#: /),
    });
  });
});
