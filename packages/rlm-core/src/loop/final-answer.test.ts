import { describe, expect, it } from 'vitest';
import { BudgetExhaustedError } from '../errors/budget-exhausted-error.js';
import { NoFinalAnswerError } from '../errors/no-final-answer-error.js';
import { SchemaCheck } from '../schema-check.js';
import type { GenerateResult } from '../language-model.js';
import { answerText } from '../answer-text.js';
import {
  extractFinal,
  noFinalAnswer,
  proseFinal,
  readCodeFinal,
  readFinalAnswer,
  withPartialAnswer,
} from './final-answer.js';

const schema = new SchemaCheck(
  {
    type: 'object',
    properties: { count: { type: 'number' } },
    required: ['count'],
  },
  'outputSchema',
);
const noVariables = (name: string) => Promise.reject(new Error(`${name} is not defined`));

describe('final answers', () => {
  it('records SUBMIT and FINAL_VAR from code, refusing unusable arguments', () => {
    expect(readCodeFinal('SUBMIT', { a: 1 })).toEqual({
      kind: 'value',
      value: { a: 1 },
      source: 'submit-code',
    });
    expect(readCodeFinal('SUBMIT', undefined)).toHaveProperty('problem');
    expect(readCodeFinal('FINAL_VAR', 'answer')).toEqual({
      kind: 'variable',
      variable: 'answer',
      source: 'final-var',
    });
    expect(readCodeFinal('FINAL_VAR', 3)).toMatchObject({
      problem: expect.stringContaining('FINAL_VAR("answer")'),
    });
  });

  it('reads a variable through the sandbox and says what to do when it is missing', async () => {
    const read = (name: string) => Promise.resolve(`value of ${name}`);
    await expect(
      readFinalAnswer({ kind: 'variable', variable: 'x', source: 'final-var' }, read, undefined),
    ).resolves.toEqual({ answer: 'value of x' });
    const missing = await readFinalAnswer(
      { kind: 'variable', variable: 'x', source: 'final-var' },
      noVariables,
      undefined,
    );
    expect(missing).toMatchObject({ problem: expect.stringContaining('Define it first') });
  });

  it('parses FINAL text as JSON under an output schema and checks it', async () => {
    const text = { kind: 'value', value: '{"count": 3}', source: 'final-text' } as const;
    await expect(readFinalAnswer(text, noVariables, schema)).resolves.toEqual({
      answer: { count: 3 },
    });
    const wrong = { kind: 'value', value: { count: 'three' }, source: 'submit-tool' } as const;
    await expect(readFinalAnswer(wrong, noVariables, schema)).resolves.toMatchObject({
      problem: expect.stringContaining('does not match the output schema'),
    });
    // A SUBMIT string is not parsed: it must match the schema as it is.
    const submitted = { kind: 'value', value: '{"count": 3}', source: 'submit-tool' } as const;
    await expect(readFinalAnswer(submitted, noVariables, schema)).resolves.toHaveProperty(
      'problem',
    );
  });

  it('finds the answer to the forced final prompt: SUBMIT first, then prose', () => {
    const base: GenerateResult = {
      text: 'FINAL(prose)',
      toolCalls: [],
      stopReason: 'end',
      usage: { inputTokens: 0, outputTokens: 0 },
    };
    expect(extractFinal(base, ['repl'])).toEqual({
      kind: 'value',
      value: 'prose',
      source: 'final-text',
    });
    const withSubmit = {
      ...base,
      toolCalls: [{ id: 't', name: 'SUBMIT', input: { variable: 'v' } }],
    };
    expect(extractFinal(withSubmit, ['repl'])).toEqual({
      kind: 'variable',
      variable: 'v',
      source: 'extract',
    });
    expect(extractFinal({ ...base, text: 'nothing' }, ['repl'])).toBeUndefined();
    expect(proseFinal('```repl\nFINAL(1)\n```', ['repl'])).toBeUndefined();
  });

  it('carries the last text as the partial answer of a call that ends without one', () => {
    const error = noFinalAnswer({ iterations: 4, depth: 0, lastText: 'almost' }, 'stalled');
    expect(NoFinalAnswerError.isInstance(error)).toBe(true);
    expect(error.partialAnswer).toBe('almost');
    expect(error.message).toContain('after 4 iterations: stalled');
    const budget = new BudgetExhaustedError('spent', { budget: 'tokens' });
    const withText = withPartialAnswer(budget, 'so far');
    expect(BudgetExhaustedError.isInstance(withText) && withText.partialAnswer).toBe('so far');
    const other = new Error('boom');
    expect(withPartialAnswer(other, 'so far')).toBe(other);
  });

  it('gives the stored text of an answer, or nothing for what JSON cannot hold', () => {
    expect(answerText('plain')).toBe('plain');
    expect(answerText({ a: 1 })).toBe('{"a":1}');
    expect(answerText(10n)).toBe('');
  });
});
