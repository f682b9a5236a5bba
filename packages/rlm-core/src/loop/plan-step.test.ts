import { describe, expect, it } from 'vitest';
import type { GenerateResult, ToolCall } from '../language-model.js';
import { type PlanContext, planStep } from './plan-step.js';

const context: PlanContext = {
  emptyStreak: 0,
  stallLimit: 3,
  codeLanguages: ['repl'],
  maxCodeBlocks: 2,
};

function response(
  text: string,
  toolCalls: ToolCall[] = [],
  stopReason: GenerateResult['stopReason'] = 'end',
): GenerateResult {
  return { text, toolCalls, stopReason, usage: { inputTokens: 0, outputTokens: 0 } };
}

const submit = (input: unknown, id = 't1'): ToolCall => ({ id, name: 'SUBMIT', input });
const fence = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

describe('planStep', () => {
  it('finalizes on a SUBMIT tool call, ignores code beside it and warns', () => {
    const plan = planStep(
      response(`${fence('print(1)')}\nFINAL(no)`, [submit({ answer: 'yes' })]),
      context,
    );
    expect(plan.kind).toBe('finalize');
    if (plan.kind !== 'finalize') return;
    expect(plan.final).toEqual({ kind: 'value', value: 'yes', source: 'submit-tool' });
    expect(plan.submitCall?.id).toBe('t1');
    expect(plan.warnings.map((warning) => warning.code)).toEqual(['submit-with-code']);
  });

  it('runs code before reading a FINAL in the prose, which becomes the fallback', () => {
    const plan = planStep(response(`${fence('x = 1')}\nFINAL(42)`), context);
    expect(plan.kind).toBe('execute');
    if (plan.kind !== 'execute') return;
    expect(plan.blocks.map((block) => block.code)).toEqual(['x = 1']);
    expect(plan.fallbackFinal).toEqual({ kind: 'value', value: '42', source: 'final-text' });
  });

  it('finalizes on FINAL text when there is no code, and reads FINAL_VAR as a variable', () => {
    expect(planStep(response('Done.\nFINAL(42)'), context)).toMatchObject({
      kind: 'finalize',
      final: { kind: 'value', value: '42', source: 'final-text' },
    });
    expect(planStep(response('FINAL_VAR(result)'), context)).toMatchObject({
      kind: 'finalize',
      final: { kind: 'variable', variable: 'result', source: 'final-var' },
    });
  });

  it('does not take a FINAL mentioned mid-sentence or inside a fence as an answer', () => {
    expect(planStep(response('I will call FINAL(x) later.'), context).kind).toBe('continue');
    expect(planStep(response('```js\nFINAL(1)\n```'), context).kind).toBe('continue');
  });

  it('answers unknown and unreadable tool calls with error results and goes on', () => {
    const plan = planStep(
      response('thinking', [{ id: 'a', name: 'search', input: {} }, submit({ nothing: 1 }, 'b')]),
      context,
    );
    expect(plan.kind).toBe('continue');
    if (plan.kind !== 'continue') return;
    expect(plan.toolResults.map((result) => [result.toolCallId, result.isError])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    expect(plan.warnings.map((warning) => warning.code)).toEqual(['submit-unreadable']);
  });

  it('keeps the error results of earlier tool calls when a later SUBMIT finalizes', () => {
    const plan = planStep(
      response('', [{ id: 'a', name: 'search', input: {} }, submit({ answer: 'x' }, 'b')]),
      context,
    );
    expect(plan).toMatchObject({ kind: 'finalize', toolResults: [{ toolCallId: 'a' }] });
  });

  it('counts empty responses and stalls at the limit', () => {
    const first = planStep(response('  '), context);
    expect(first).toMatchObject({ kind: 'continue', emptyStreak: 1 });
    expect(planStep(response(''), { ...context, emptyStreak: 1 }).emptyStreak).toBe(2);
    const stalled = planStep(response(''), { ...context, emptyStreak: 2 });
    expect(stalled.kind).toBe('stall');
    expect(stalled.warnings.map((warning) => warning.code)).toEqual(['stall']);
    expect(planStep(response('text'), { ...context, emptyStreak: 2 }).emptyStreak).toBe(0);
  });

  it('runs only the first maxCodeBlocks blocks and tells the model about the rest', () => {
    const plan = planStep(response([1, 2, 3].map((n) => fence(`print(${n})`)).join('\n')), context);
    expect(plan.kind).toBe('execute');
    if (plan.kind !== 'execute') return;
    expect(plan.blocks).toHaveLength(2);
    expect(plan.notes.join(' ')).toContain('NOT run');
    expect(plan.warnings.map((warning) => warning.code)).toEqual(['code-blocks-not-run']);
  });

  it('drops an unfinished block of a cut-off response and continues with a note', () => {
    const plan = planStep(response('```repl\nconst x = [1,', [], 'max-tokens'), context);
    expect(plan.kind).toBe('continue');
    if (plan.kind !== 'continue') return;
    expect(plan.notes.join(' ')).toContain('NOT run');
    expect(plan.warnings.map((warning) => warning.code)).toEqual(['response-cut']);
  });
});
