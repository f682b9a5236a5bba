import { describe, expect, test } from 'vitest';
import { planCodeBlocks } from './plan-code-blocks.js';
import { parseResponse } from './parse-response.js';

const blocks = (text: string) => parseResponse(text, ['repl']).codeBlocks;
const fence = '```';

describe('planCodeBlocks', () => {
  test('a response cut inside a block: the complete blocks run, the unfinished one does not', () => {
    const text = `${fence}repl\nconst a = 1;\n${fence}\nNow the rest:\n${fence}repl\nconst b = [1, 2,`;
    const plan = planCodeBlocks(blocks(text), { stopReason: 'max-tokens', maxBlocks: 20 });
    expect(plan.run.map((block) => block.code)).toEqual(['const a = 1;']);
    expect(plan).toMatchObject({ cutOff: true, unfinishedDropped: true, notRun: 0 });
  });

  test('a response cut in prose after complete blocks runs them all', () => {
    const text = `${fence}repl\nconst a = 1;\n${fence}\nAnd then I will`;
    const plan = planCodeBlocks(blocks(text), { stopReason: 'max-tokens', maxBlocks: 20 });
    expect(plan.run).toHaveLength(1);
    expect(plan).toMatchObject({ cutOff: true, unfinishedDropped: false });
  });

  test('an unclosed block in a response that ended normally still runs', () => {
    const plan = planCodeBlocks(blocks(`${fence}repl\nprint(1)`), {
      stopReason: 'end',
      maxBlocks: 20,
    });
    expect(plan.run.map((block) => block.code)).toEqual(['print(1)']);
    expect(plan).toMatchObject({ cutOff: false, unfinishedDropped: false });
  });

  test('past the limit, the first blocks run and the rest are counted', () => {
    const text = Array.from(
      { length: 25 },
      (_, index) => `${fence}repl\nprint(${index})\n${fence}`,
    ).join('\n');
    const plan = planCodeBlocks(blocks(text), { stopReason: 'end', maxBlocks: 20 });
    expect(plan.run).toHaveLength(20);
    expect(plan.run.at(-1)!.code).toBe('print(19)');
    expect(plan.notRun).toBe(5);
  });
});
