import { createRLM, type GenerateRequest, type RLMSettings } from '@rlm/core';
import {
  createScriptedModel,
  createScriptedSandbox,
  type ScriptedSandboxScript,
} from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { createReplayModel } from './create-replay-model.js';
import { createTraceRecorder } from './create-trace-recorder.js';
import { ReplayDivergedError } from './errors/replay-diverged-error.js';
import type { TraceDocument } from './trace-document.js';
import { traceToJsonLines } from './trace-json-lines.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const context = 'apples: 3\npears: 5\nplums: 0';

/** A sandbox whose code asks three prompts at once, then prints what the context says. */
function sandboxFor(text: string): ScriptedSandboxScript {
  return {
    'const fruit = await llm_query_batched(["apples?", "pears?", "plums?"])': async ({
      host,
      variables,
      print,
    }) => {
      const answers = await host.llm_query_batched!(['apples?', 'pears?', 'plums?']);
      variables.set('fruit', answers);
      print(answers);
    },
    'print(context)': ({ print }) => print(text),
    'SUBMIT(fruit.join(", "))': async ({ host, variables }) => {
      await host.SUBMIT!((variables.get('fruit') as string[]).join(', '));
    },
  };
}

/** The recorded model: the sub-calls answer after different delays, so they finish out of order. */
function recordedModel() {
  const steps = [
    repl('const fruit = await llm_query_batched(["apples?", "pears?", "plums?"])'),
    repl('print(context)'),
    repl('SUBMIT(fruit.join(", "))'),
  ];
  let step = 0;
  return createScriptedModel([], {
    supportsTools: true,
    fallback: (request: GenerateRequest) => {
      const last = request.messages.at(-1)!;
      const prompt = typeof last.content === 'string' ? last.content : '';
      if (request.singleUse) {
        const delayMs = { 'apples?': 30, 'pears?': 1, 'plums?': 15 }[prompt] ?? 0;
        return { text: `${prompt.replace('?', '')}: counted`, delayMs };
      }
      return steps[step++] ?? 'FINAL(out of script)';
    },
  });
}

async function run(settings: Pick<RLMSettings, 'model' | 'sandbox'>, text = context) {
  await using rlm = createRLM({ ...settings, limits: { maxConcurrency: 4 } });
  const recorder = createTraceRecorder();
  try {
    for await (const event of rlm.queryStream('Count the fruit', text)) recorder.record(event);
    recorder.finish();
    return { trace: recorder.trace, error: undefined };
  } catch (error) {
    recorder.finish(error);
    return { trace: recorder.trace, error: error as Error };
  }
}

async function record(): Promise<TraceDocument> {
  const { trace, error } = await run({
    model: recordedModel(),
    sandbox: createScriptedSandbox(sandboxFor(context)),
  });
  expect(error).toBeUndefined();
  return trace;
}

describe('createReplayModel', () => {
  test('a replay gives the recorded answers, whatever order concurrent requests come in', async () => {
    const trace = await record();
    expect(trace.final?.answerExcerpt).toBe('apples: counted, pears: counted, plums: counted');
    const llm = createReplayModel({ trace: traceToJsonLines(trace), source: 'run.jsonl' });
    expect(llm.recorded).toBe(6);
    expect(llm.supportsTools).toBe(true);
    const replayed = await run({ model: llm, sandbox: createScriptedSandbox(sandboxFor(context)) });
    expect(replayed.error).toBeUndefined();
    expect(replayed.trace.final?.answerExcerpt).toBe(trace.final?.answerExcerpt);
    expect(llm.unused).toBe(0);
    // The replay's own trace holds the same exchanges: it can be replayed in turn.
    const again = createReplayModel({ trace: replayed.trace });
    const third = await run({ model: again, sandbox: createScriptedSandbox(sandboxFor(context)) });
    expect(third.trace.final?.answerExcerpt).toBe(trace.final?.answerExcerpt);
    // Usage is the recorded usage; the replay model is priced nowhere.
    expect(replayed.trace.usage).toMatchObject({
      modelCalls: 6,
      inputTokens: trace.usage.inputTokens,
    });
    expect(replayed.trace.usage.costUsd).toBeUndefined();
  });

  test('a run that takes another path fails at the first difference, saying where', async () => {
    const trace = await record();
    const llm = createReplayModel({ trace: traceToJsonLines(trace), source: 'run.jsonl' });
    const replayed = await run({
      model: llm,
      sandbox: createScriptedSandbox(sandboxFor('apples: 3\npears: 6\nplums: 0')),
    });
    expect(ReplayDivergedError.isInstance(replayed.error)).toBe(true);
    expect((replayed.error as ReplayDivergedError).request).toBe(6);
    expect(replayed.error?.message).toBe(
      '@rlm/trace: the replayed run left run.jsonl at model request 6: it differs from the closest recorded request, step 3 of the root call, in message 5 (user) at character 74: recorded "…ext)\\n```\\n\\nREPL output:\\napples: 3\\npears: 5\\nplums: 0\\nStep 3 of 20.", asked "…ext)\\n```\\n\\nREPL output:\\napples: 3\\npears: 6\\nplums: 0\\nStep 3 of 20."; the code, context, settings or version changed since the recording',
    );
    expect(replayed.error?.message).not.toContain('\n');
  });

  test('a run that asks for more than was recorded says the recording ended', async () => {
    const trace = await record();
    // The recording ends at its second step.
    const cut: TraceDocument = {
      ...trace,
      calls: trace.calls.map((call) => ({ ...call, steps: call.steps.slice(0, 2) })),
    };
    const llm = createReplayModel({ trace: cut });
    const replayed = await run({ model: llm, sandbox: createScriptedSandbox(sandboxFor(context)) });
    expect(replayed.error?.message).toMatch(
      /^@rlm\/trace: the replayed run left the recording at model request 6: all 5 recorded responses were given and the run asks for another \(its last message, user: ".*"\); the recorded run ended there, this one goes on$/,
    );
  });

  test('after a sub-call diverges, every later request fails with that first divergence', async () => {
    const trace = await record();
    const llm = createReplayModel({ trace });
    const sandbox = createScriptedSandbox({
      ...sandboxFor(context),
      'const fruit = await llm_query_batched(["apples?", "pears?", "plums?"])': async ({
        host,
        print,
      }) => {
        try {
          await host.llm_query!('kiwis?');
        } catch (error) {
          print(`caught: ${(error as Error).message.slice(0, 40)}`);
        }
      },
    });
    const replayed = await run({ model: llm, sandbox });
    expect(ReplayDivergedError.isInstance(replayed.error)).toBe(true);
    expect((replayed.error as ReplayDivergedError).request).toBe(2);
    expect(replayed.error?.message).toContain('asked "kiwis?"');
  });

  test('a request asked more often than recorded says so', async () => {
    const llm = createReplayModel({ trace: await record() });
    const prompt = { system: '', messages: [{ role: 'user' as const, content: 'pears?' }] };
    expect((await llm.generate(prompt)).text).toBe('pears: counted');
    await expect(llm.generate(prompt)).rejects.toThrow(
      '@rlm/trace: the replayed run left the recording at model request 2: the recorded run asked this (llm_query_batched in step 1 of the root call) 1 time, and all were answered; this run asks it once more',
    );
  });

  test('an aborted request rejects with the abort, not as a divergence', async () => {
    const llm = createReplayModel({ trace: await record() });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(
      llm.generate(
        { system: '', messages: [{ role: 'user', content: 'x' }] },
        { signal: controller.signal },
      ),
    ).rejects.toThrow('stop');
    expect(llm.unused).toBe(6);
  });
});
