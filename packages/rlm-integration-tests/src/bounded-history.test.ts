import { createRLM } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

test('the prompt stays under the history budget over a 200-iteration run', async () => {
  let step = 0;
  const llm = createScriptedModel([], {
    fallback: () => {
      step += 1;
      return step > 200
        ? 'FINAL(done)'
        : `Step ${step}.\n\`\`\`repl\nconst v${step} = "${step}".repeat(500);\nprint(v${step}.slice(0, 2000));\n\`\`\``;
    },
  });
  await using rlm = createRLM({
    model: llm,
    sandbox: sandboxFactory,
    limits: { maxIterations: 250, historyBudgetChars: 30_000 },
  });
  const result = await rlm.query('long run', 'ctx');
  expect(result.answer).toBe('done');
  const promptChars = llm.requests.map((request) => JSON.stringify(request.messages).length);
  const at = (iteration: number) => promptChars[iteration - 1]!;
  // Unbounded, iteration 200 would carry ~200 x 2,100 characters of history.
  expect(at(200)).toBeLessThan(30_000 * 1.3);
  expect(Math.abs(at(200) - at(50))).toBeLessThan(at(50) * 0.15);
  expect(at(5)).toBeLessThan(at(50));
  // The newest step is always there in full.
  expect(JSON.stringify(llm.requests[199]!.messages)).toContain('const v199');
});
