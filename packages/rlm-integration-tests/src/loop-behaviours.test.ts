import { createRLM, ModelCallError, NoFinalAnswerError } from '@rlm/core';
import { collectEvents, createScriptedModel } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

// The behaviours a model meets in ordinary runs (issue 24), through createRLM with the real
// sandbox: SES, or QuickJS with RLM_SANDBOX=quickjs.

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

function textOf(request: { messages: readonly { content: unknown }[] }, at = -1): string {
  const content = request.messages.at(at)!.content;
  if (typeof content === 'string') return content;
  return (content as { text?: string; content?: string }[])
    .map((part) => part.text ?? part.content ?? '')
    .join('\n');
}

describe('batched calls keep what succeeded', () => {
  test('llm_query_batched: the failed prompt takes its slot as { error, message }, in order', async () => {
    const llm = createScriptedModel([
      repl(
        'const answers = await llm_query_batched(["a", "b", "c"]);\nprint(JSON.stringify(answers));\nprint(answers.map((answer) => typeof answer === "string").join(","));',
      ),
      'FINAL(done)',
    ]);
    const subLlm = createScriptedModel([], {
      fallback: (request) =>
        textOf(request) === 'b'
          ? { error: new ModelCallError('the provider is overloaded', { reason: 'server' }) }
          : `answer ${textOf(request)}`,
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox: sandboxFactory });
    await rlm.query('q', 'c');
    const output = textOf(llm.requests[1]!);
    expect(output).toContain(
      '["answer a",{"error":"ModelCallError","message":"the provider is overloaded"},"answer c"]',
    );
    expect(output).toContain('true,false,true');
  });

  test('sub_rlm_batched: a child that fails takes its slot; the others answer', async () => {
    const llm = createScriptedModel([], {
      fallback: (request) => {
        const query = textOf(request, 0);
        const executed = textOf(request).includes('REPL output');
        if (query.includes('Query: root')) {
          return executed
            ? 'FINAL(done)'
            : repl(
                'SUBMIT(await sub_rlm_batched([{ query: "one", context: "x" }, { query: "broken" }, { query: "two" }]))',
              );
        }
        if (query.includes('Query: broken')) return { error: new Error('child model down') };
        return `FINAL(${query.includes('Query: one') ? 1 : 2})`;
      },
    });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    expect((await rlm.query('root', 'c')).answer).toEqual([
      '1',
      { error: 'Error', message: 'child model down' },
      '2',
    ]);
  });
});

describe('budgets count the calls that were made', () => {
  test('with a budget of 6 calls, a refused batch of 10 leaves the rest for the root to answer', async () => {
    const llm = createScriptedModel([
      repl(
        'try { await llm_query_batched(Array.from({ length: 10 }, (_, i) => "p" + i)); } catch (error) { print(error.message); }',
      ),
      (request) => {
        expect(textOf(request)).toContain('refused: 10 calls do not fit');
        return 'FINAL(answered)';
      },
    ]);
    const subLlm = createScriptedModel([], { fallback: () => 'sub' });
    await using rlm = createRLM({
      model: llm,
      subModel: subLlm,
      sandbox: sandboxFactory,
      budget: { maxModelCalls: 6 },
    });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe('answered');
    expect(result.usage.modelCalls).toBe(2);
    expect(subLlm.requests).toHaveLength(0);
  });
});

describe('SUBMIT ends the block', () => {
  test('nothing after SUBMIT runs, even past a catch: no model call, no output', async () => {
    const subLlm = createScriptedModel([], { fallback: () => 'should not be asked' });
    for (const code of [
      'print("before");\nSUBMIT(42);\nprint("after");\nawait llm_query("late");',
      'print("before");\ntry { SUBMIT(42); } catch (error) { print("caught", error.message); }\nconst late = await llm_query("late").catch(() => "refused");\nprint("after", late);',
    ]) {
      const llm = createScriptedModel([repl(code)]);
      await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox: sandboxFactory });
      const { events } = await collectEvents(rlm.queryStream('q', 'c'));
      expect(events.find((event) => event.type === 'execution')).toMatchObject({
        output: 'before',
      });
      expect(events.at(-1)).toMatchObject({ type: 'final', answer: 42 });
      expect(events.filter((event) => event.type === 'bridge-call')).toEqual([]);
    }
    expect(subLlm.requests).toHaveLength(0);
  });

  test('FINAL_VAR in code returns the variable as it was when called', async () => {
    const llm = createScriptedModel([
      repl('let report = "kept";\nFINAL_VAR("report");\nreport = "changed after";'),
    ]);
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    expect((await rlm.query('q', 'c')).answer).toBe('kept');
  });

  test('a SUBMIT the host refuses ends the block and the model is told why', async () => {
    const llm = createScriptedModel([
      repl('print("before");\nSUBMIT(undefined);\nprint("after")'),
      (request) => {
        expect(textOf(request)).toContain(
          'REPL output:\nbefore\nError: SUBMIT(value) needs a value; got undefined. Nothing was submitted; the block ended at that call.',
        );
        return 'FINAL(fixed)';
      },
    ]);
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    expect((await rlm.query('q', 'c')).answer).toBe('fixed');
  });
});

describe('per-call model choice', () => {
  test('llm_query and sub_rlm use the model named; the parent keeps its own', async () => {
    const cheap = createScriptedModel([], { modelId: 'p:cheap', fallback: () => 'from cheap' });
    const strong = createScriptedModel([], {
      modelId: 'p:strong',
      fallback: () => 'FINAL(from strong)',
    });
    const llm = createScriptedModel(
      [
        repl(
          'SUBMIT([await llm_query("x", { model: "cheap" }), await llm_query("x"), await sub_rlm("child", "c", { model: "strong" })])',
        ),
      ],
      { modelId: 'p:root', otherModels: { strong } },
    );
    const subLlm = createScriptedModel([], {
      modelId: 'p:sub',
      fallback: () => 'from sub',
      otherModels: { cheap },
    });
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox: sandboxFactory });
    expect((await rlm.query('root', 'c')).answer).toEqual([
      'from cheap',
      'from sub',
      'from strong',
    ]);
  });

  test('an id not allowed is an error code can catch, naming the ids allowed', async () => {
    const llm = createScriptedModel([
      repl(
        'try { await llm_query("x", { model: "big" }); } catch (error) { SUBMIT(error.message); }',
      ),
    ]);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      subModels: ['small', 'tiny'],
    });
    expect((await rlm.query('q', 'c')).answer).toBe(
      'llm_query(prompt, options): model "big" is not one this run allows; choose one of: small, tiny',
    );
  });
});

describe('the model knows where it is, and looks back', () => {
  test('each step says its number of the most and the model calls left', async () => {
    const llm = createScriptedModel([repl('print(1)'), 'FINAL(done)']);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      limits: { maxIterations: 30 },
      budget: { maxModelCalls: 9 },
    });
    await rlm.query('q', 'c');
    expect(textOf(llm.requests[0]!)).toMatch(/Step 1 of 30\. Budget left: 9 model calls\.$/);
    expect(textOf(llm.requests[1]!)).toMatch(/Step 2 of 30\. Budget left: 8 model calls\.$/);
  });

  test('steps compacted out of the prompt stay readable from code in history', async () => {
    const steps = Array.from({ length: 8 }, (_, index) =>
      repl(`const out${index} = "value ${index} ".repeat(300);\nprint(out${index})`),
    );
    const llm = createScriptedModel([
      ...steps,
      repl(
        'const back = history.at(-1).steps;\nSUBMIT(back.map((entry) => [entry.step, entry.code.split("\\n")[0], entry.output.length]))',
      ),
    ]);
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      limits: { historyBudgetChars: 12_000 },
    });
    const answer = (await rlm.query('q', 'c')).answer as [number, string, number][];
    expect(answer.length).toBeGreaterThan(2);
    answer.forEach(([step, firstLine, outputLength], index) => {
      expect(step).toBe(index + 1);
      expect(firstLine).toBe(`const out${index} = "value ${index} ".repeat(300);`);
      expect(outputLength).toBe(`value ${index} `.repeat(300).length);
    });
  });

  test('the context preview shows the start and the end of the context', async () => {
    const context = `FIRST-WORDS ${'middle '.repeat(1_000)}LAST-WORDS`;
    const llm = createScriptedModel(['FINAL(seen)']);
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    await rlm.query('q', context);
    const prompt = textOf(llm.requests[0]!, 0);
    expect(prompt).toMatch(/- first characters: "FIRST-WORDS middle/);
    expect(prompt).toMatch(/- last characters: "[^"]*middle LAST-WORDS"/);
  });
});

describe('outputs and failures the model can act on', () => {
  test('a long summary computed over the context is shown; a dump of the context is redacted', async () => {
    const context = Array.from(
      { length: 300 },
      (_, index) => `Line ${index}: ${index * 17} widgets.`,
    ).join('\n');
    const llm = createScriptedModel([
      repl(
        'print(context.split("\\n").map((line, i) => "row " + i + " has " + line.length).join("\\n"))',
      ),
      repl('print(context.slice(0, 4000) + "(end)")'),
      'FINAL(done)',
    ]);
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const { events } = await collectEvents(rlm.queryStream('q', context));
    const shown = events.flatMap((event) =>
      event.type === 'execution' ? [event.shownToModel] : [],
    );
    expect(shown[0]).toContain('row 299 has');
    expect(shown[0]).not.toContain('redacted');
    expect(shown[1]).toBe(
      '[redacted: 4000 characters copied verbatim from context.slice(0, 4000); work on them in code instead of printing them](end)',
    );
  });

  test('an empty llm_query answer comes with a warning in the output and an event', async () => {
    const llm = createScriptedModel([
      repl('const answer = await llm_query("x");\nprint("length", answer.length)'),
      'FINAL(done)',
    ]);
    const subLlm = createScriptedModel(['']);
    await using rlm = createRLM({ model: llm, subModel: subLlm, sandbox: sandboxFactory });
    const { events } = await collectEvents(rlm.queryStream('q', 'c'));
    expect(textOf(llm.requests[1]!)).toContain(
      'length 0\nWarning: llm_query got an empty answer ("") from scripted.',
    );
    expect(events.filter((event) => event.type === 'warning')).toEqual([
      expect.objectContaining({ code: 'empty-sub-answer' }),
    ]);
  });

  test('maxConsecutiveErrors ends a run whose code keeps throwing, with the reason', async () => {
    const llm = createScriptedModel([], {
      fallback: () => `Trying again.\n${repl('notDefinedAnywhere()')}`,
    });
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      limits: { maxConsecutiveErrors: 2 },
    });
    const error = await rlm.query('q', 'c').catch((caught: unknown) => caught);
    expect(NoFinalAnswerError.isInstance(error)).toBe(true);
    expect((error as NoFinalAnswerError).diagnostics.consecutiveErrors).toEqual({
      count: 2,
      lastError: 'ReferenceError: notDefinedAnywhere is not defined',
    });
    expect((error as NoFinalAnswerError).partialAnswer).toContain('Trying again.');
    expect(llm.requests).toHaveLength(2);
  });
});
