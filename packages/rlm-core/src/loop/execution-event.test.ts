import { expect, test } from 'vitest';
import { createRLM } from '../create-rlm.js';
import { lastMessageText, repl } from '../loop-test-helpers.js';
import { collectEvents, createScriptedModel, createScriptedSandbox } from '../testing/index.js';

// The execution event carries data: what the code printed, its error, and what the model saw.

test('an execution event has the output, the error and what the model was shown, apart', async () => {
  const llm = createScriptedModel([
    repl('broken'),
    (request) => {
      expect(lastMessageText(request)).toContain('partial line\nTypeError: boom');
      return repl('long');
    },
    'FINAL(done)',
  ]);
  const sandbox = createScriptedSandbox({
    broken: ({ print }) => {
      print('partial line');
      throw new TypeError('boom');
    },
    long: () => 'y'.repeat(5_000),
  });
  await using rlm = createRLM({ model: llm, sandbox, limits: { maxOutputChars: 1_000 } });
  const { events } = await collectEvents(rlm.queryStream('q', 'c'.repeat(100_000)));
  const [broken, long] = events.flatMap((event) => (event.type === 'execution' ? [event] : []));
  expect(broken).toMatchObject({
    output: 'partial line',
    error: 'TypeError: boom',
    shownToModel: 'partial line\nTypeError: boom',
  });
  expect(long?.output).toBe('y'.repeat(5_000));
  expect(long?.error).toBeUndefined();
  expect(long?.shownToModel.length).toBeLessThan(1_500);
  expect(long?.shownToModel).toContain('5000 characters');
});
