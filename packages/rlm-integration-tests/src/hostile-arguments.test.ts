import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deserialize } from 'node:v8';
import { createMemoryArtifactStore } from '@rlm/artifacts';
import {
  createRLM,
  type GenerateRequest,
  hashContext,
  type HostTool,
  type LanguageModel,
  type RLMSettings,
  runKey,
} from '@rlm/core';
import { createScriptedModel, timeScaled } from '@rlm/core/testing';
import { createToolStore } from '@rlm/toolstore';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

/**
 * Hostile values as guest expressions: each is built fresh inside the sandbox, so proxies,
 * getters and functions are the guest's own.
 */
const hostileValues: Readonly<Record<string, string>> = {
  undefined: 'undefined',
  null: 'null',
  empty: "''",
  whitespace: "' \\n\\t '",
  bigint: '1n',
  symbol: "Symbol('s')",
  function: '() => 1',
  cyclic: '(() => { const o = { a: 1 }; o.self = o; return o; })()',
  shared: '(() => { const s = { x: "y" }; return [s, s, { s }]; })()',
  proxy: 'new Proxy({ a: 1 }, {})',
  revokedProxy: '(() => { const r = Proxy.revocable({}, {}); r.revoke(); return r.proxy; })()',
  throwingGetter: "({ get a() { throw new Error('getter boom'); } })",
  throwingToJSON: "({ toJSON() { throw new Error('toJSON boom'); } })",
  hugeString: "'x'.repeat(8 * 1024 * 1024)",
};

/** What the guest reports for one hostile value. */
interface Outcome {
  readonly label: string;
  readonly ok: boolean;
  readonly message?: string;
}

/** A block that calls `call(value)` for every hostile value and SUBMITs what happened. */
function tableBlock(call: string): string {
  const makers = Object.entries(hostileValues)
    .map(([label, expression]) => `  ${JSON.stringify(label)}: () => ${expression},`)
    .join('\n');
  return repl(
    [
      `const makers = {\n${makers}\n};`,
      'const outcomes = [];',
      'for (const [label, make] of Object.entries(makers)) {',
      `  try { await (${call})(make()); outcomes.push({ label, ok: true }); }`,
      '  catch (error) { outcomes.push({ label, ok: false, message: String(error?.message) }); }',
      '}',
      'SUBMIT(JSON.stringify(outcomes));',
    ].join('\n'),
  );
}

const echo: HostTool = {
  name: 'echo',
  description: 'Returns its input.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  execute: (input) => input,
};

let toolRoot: string;
beforeAll(async () => {
  toolRoot = await mkdtemp(path.join(tmpdir(), 'rlm-hostile-arguments-'));
});
afterAll(async () => {
  await rm(toolRoot, { recursive: true, force: true });
});

const isRoot = (request: GenerateRequest) =>
  JSON.stringify(request.messages[0]).includes('root question');
const isCodeWriter = (request: GenerateRequest) =>
  request.system.startsWith('You write the code of one method');

/**
 * One run with every feature installed (artifacts, a host tool, durable tools): the root
 * answers with `steps`, `sub_rlm` children answer FINAL(child), durable-tool code is
 * `typeof input`, plain model calls answer ok.
 */
async function run(
  steps: string[],
  settings: Partial<RLMSettings> = {},
  rootRequests: GenerateRequest[] = [],
  /** Awaited before the root is answered its `index`-th step (from 0). */
  beforeRootStep?: (index: number) => Promise<void>,
) {
  const scripted = createScriptedModel([], {
    fallback: (request) => {
      if (isCodeWriter(request)) return '```js\n(input) => typeof input\n```';
      if (!isRoot(request)) return 'FINAL(child)';
      rootRequests.push(request);
      const step = steps.shift();
      if (step === undefined) throw new Error('the root script ran out');
      return step;
    },
  });
  const llm: LanguageModel =
    beforeRootStep === undefined
      ? scripted
      : {
          ...scripted,
          generate: async (request, options) => {
            if (isRoot(request) && !isCodeWriter(request)) {
              await beforeRootStep(rootRequests.length);
            }
            return scripted.generate(request, options);
          },
        };
  await using rlm = createRLM({
    model: llm,
    subModel: createScriptedModel([], { fallback: () => 'ok' }),
    sandbox: sandboxFactory,
    artifacts: { store: createMemoryArtifactStore() },
    hostTools: [echo],
    durableTools: { store: createToolStore({ root: toolRoot }) },
    ...settings,
  });
  return await rlm.query('root question', 'some context');
}

/** Every host function, as model code calls it with one hostile argument. */
const calls: ReadonlyArray<{ readonly call: string; readonly settings?: Partial<RLMSettings> }> = [
  { call: '(v) => llm_query(v)' },
  { call: "(v) => llm_query('ok', v)" },
  { call: "(v) => llm_query('ok', { model: v })" },
  { call: '(v) => llm_query_batched(v)' },
  { call: "(v) => llm_query_batched(['ok', v])" },
  { call: "(v) => llm_query_batched(['ok'], v)" },
  { call: '(v) => sub_rlm_batched(v)', settings: { limits: { maxDepth: 2 } } },
  {
    call: "(v) => sub_rlm_batched([{ query: 'q', context: v }])",
    settings: { limits: { maxDepth: 1 } },
  },
  { call: "(v) => sub_rlm_batched([{ query: 'q' }], v)", settings: { limits: { maxDepth: 2 } } },
  { call: "(v) => sub_rlm(v, 'c')", settings: { limits: { maxDepth: 1 } } },
  { call: "(v) => sub_rlm('child question', v)", settings: { limits: { maxDepth: 1 } } },
  { call: "(v) => sub_rlm(v, 'c')", settings: { limits: { maxDepth: 2 } } },
  { call: "(v) => sub_rlm('child question', v)", settings: { limits: { maxDepth: 2 } } },
  { call: '(v) => SHOW_VARS(v)' },
  { call: '(v) => store(v, "x")' },
  { call: '(v) => store("key", v)' },
  { call: '(v) => store("key", "x", v)' },
  { call: '(v) => load(v)' },
  { call: '(v) => list_artifacts(v)' },
  { call: '(v) => echo(v)' },
  { call: '(v) => echo({ text: "a" }, v)' },
  { call: '(v) => delegate(v, { purpose: "p" })' },
  { call: '(v) => delegate("role", v)' },
  { call: '(v) => tool(v)' },
  { call: '(v) => tool("role").parse(v)' },
];

/** Arguments that are never a usable prompt, query or name. */
const neverText = ['undefined', 'null', 'empty', 'whitespace'];

describe('every host function settles every hostile argument with a catchable error', () => {
  test.each(calls)(
    '$call (limits.maxDepth $settings.limits.maxDepth)',
    async ({ call, settings }) => {
      const result = await run([tableBlock(call)], settings);
      const outcomes = JSON.parse(result.answer as string) as Outcome[];
      expect(outcomes.map((outcome) => outcome.label)).toEqual(Object.keys(hostileValues));
      const functionName = /\(v\) => (\w+)/.exec(call)![1]!;
      for (const outcome of outcomes) {
        if (outcome.ok) continue;
        // The message names the function and says what it needs, not a bare "failed".
        expect(outcome.message, outcome.label).toContain(functionName);
        expect(outcome.message, outcome.label).not.toMatch(/ failed$/);
      }
      const byLabel = new Map(outcomes.map((outcome) => [outcome.label, outcome]));
      if (/^\(v\) => (llm_query|sub_rlm)\(v/.test(call)) {
        for (const label of neverText) expect(byLabel.get(label)?.ok, label).toBe(false);
      }
    },
    120_000,
  );

  test('llm_query explains what to pass for values without text', async () => {
    const result = await run([tableBlock('(v) => llm_query(v)')]);
    const byLabel = new Map(
      (JSON.parse(result.answer as string) as Outcome[]).map((outcome) => [outcome.label, outcome]),
    );
    expect(byLabel.get('undefined')?.message).toBe(
      'llm_query(prompt) needs a non-empty string; got undefined',
    );
    expect(byLabel.get('bigint')?.message).toMatch(
      /^llm_query\(prompt\) needs a string or plain JSON data; got a bigint/,
    );
    expect(byLabel.get('cyclic')?.message).toMatch(/needs a string or plain JSON data/);
    expect(byLabel.get('shared')).toEqual({ label: 'shared', ok: true });
    expect(byLabel.get('hugeString')).toEqual({ label: 'hugeString', ok: true });
  }, 120_000);

  test('sub_rlm at the last depth with a bigint in its context is refused, not lost', async () => {
    const result = await run(
      [
        repl(
          "let message; try { await sub_rlm('q', { n: 1n }); } catch (error) { message = error.message; }\nSUBMIT(message);",
        ),
      ],
      { limits: { maxDepth: 1 } },
    );
    expect(result.answer).toMatch(
      /^sub_rlm\(query, context\) needs a string or plain JSON data; got an object/,
    );
  }, 60_000);
});

describe('SUBMIT and FINAL_VAR end the run, or the block, whatever they are given', () => {
  // A value that cannot leave the sandbox throws where SUBMIT is called, and the code goes on;
  // one the host refuses ends the block, and the model reads why in the next step.
  test.each(Object.entries(hostileValues))(
    'SUBMIT(%s)',
    async (label, expression) => {
      const rootRequests: GenerateRequest[] = [];
      const result = await run(
        [
          repl(
            `try { SUBMIT(${expression}); } catch (error) { SUBMIT('refused: ' + error.message); }`,
          ),
          'FINAL(recovered)',
        ],
        {},
        rootRequests,
      );
      if (typeof result.answer === 'string' && result.answer.startsWith('refused: ')) {
        expect(result.answer).toContain('SUBMIT');
      }
      if (label === 'undefined') {
        expect(result.answer).toBe('recovered');
        expect(JSON.stringify(rootRequests[1]!.messages.at(-1))).toContain(
          'Error: SUBMIT(value) needs a value; got undefined. Nothing was submitted; the block ended at that call.',
        );
      }
      if (label === 'bigint') expect(result.answer).toBe(1n);
    },
    60_000,
  );

  test.each(Object.entries(hostileValues))(
    'FINAL_VAR(%s)',
    async (label, expression) => {
      const rootRequests: GenerateRequest[] = [];
      const result = await run(
        [
          repl(
            `try { FINAL_VAR(${expression}); } catch (error) { SUBMIT('refused: ' + error.message); }`,
          ),
          'FINAL(recovered)',
        ],
        {},
        rootRequests,
      );
      // No hostile value names a defined variable: each is refused where it is called, or by
      // the host (the block ends, the model is told), or read and rejected after the block;
      // the model answers on the next step.
      expect(result.answer === 'recovered' || String(result.answer).startsWith('refused: ')).toBe(
        true,
      );
      if (neverText.includes(label) || label === 'bigint') {
        expect(result.answer).toBe('recovered');
        expect(JSON.stringify(rootRequests[1]!.messages.at(-1))).toMatch(
          /Error: FINAL_VAR\(name\) needs the variable name as a string.*Nothing was submitted/,
        );
      }
    },
    60_000,
  );
});

describe('the host never walks a guest value path by path', () => {
  test('shared references 60 levels deep: checkpoint, llm_query, a host tool and SUBMIT stay prompt', async () => {
    const result = await run([
      repl(
        [
          'let deep = ["leaf"];',
          'for (let level = 0; level < 60; level += 1) deep = [deep, deep];',
          'const refused = [];',
          'for (const call of [() => llm_query(deep), () => echo({ text: "a", deep })]) {',
          '  try { await call(); refused.push("accepted"); } catch (error) { refused.push(error.message); }',
          '}',
        ].join('\n'),
      ),
      repl('SUBMIT({ refused, deep });'),
    ]);
    const { refused, deep } = result.answer as { refused: string[]; deep: unknown[] };
    expect(refused[0]).toMatch(
      /^llm_query\(prompt\) needs a string or plain JSON data; got an array: it has more than 1000000 values/,
    );
    expect(refused[1]).toMatch(/^echo: input must be plain JSON data: it has more than/);
    // The answer is the guest's structure itself (shared, not expanded).
    let node = deep;
    for (let level = 0; level < 60; level += 1) {
      expect(node[0]).toBe(node[1]);
      node = node[0] as unknown[];
    }
  }, 120_000);
});

/**
 * Watches the host while `work` runs: its peak resident memory over the start, and the longest
 * time its event loop went without running a 20 ms timer (how long a SIGINT would wait), in
 * the reference machine's milliseconds (divided by the machine's slowdown around `work`, see
 * `timeScaled`).
 */
async function watchHost<T>(
  work: () => Promise<T>,
): Promise<{ result: T; rssGrowthMb: number; longestStallMs: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  let last = performance.now();
  let longestStallMs = 0;
  const sampler = setInterval(() => {
    const now = performance.now();
    longestStallMs = Math.max(longestStallMs, now - last);
    last = now;
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  try {
    const { value: result, slowdown } = await timeScaled(work);
    peak = Math.max(peak, process.memoryUsage.rss());
    return {
      result,
      rssGrowthMb: (peak - before) / 2 ** 20,
      longestStallMs: longestStallMs / slowdown,
    };
  } finally {
    clearInterval(sampler);
  }
}

describe('large values shared by reference never expand across the sandbox boundary', () => {
  /** One 1 MiB string referenced 4,500 times: 4.5 GiB once copied, 1 MiB in the sandbox. */
  const makeShared = [
    "const s = 'x'.repeat(2 ** 20);",
    'const a = Array(4500).fill(s);',
    'const o = { text: s };',
    'const many = Array(6000).fill(o);',
  ].join('\n');

  test('host functions and the checkpoint refuse them, model code catches it; the host stays small', async () => {
    const artifacts = createMemoryArtifactStore();
    const { result, rssGrowthMb, longestStallMs } = await watchHost(() =>
      run(
        [
          repl(
            [
              makeShared,
              'const refused = {};',
              'const calls = {',
              '  SUBMIT: () => SUBMIT(a),',
              '  llm_query_batched: () => llm_query_batched(a),',
              '  echo: () => echo({ text: "t", a }),',
              '  sub_rlm: () => sub_rlm("q", a),',
              '  store: () => store("big", a),',
              '  objects: () => llm_query_batched(many),',
              '  childOfObjects: () => sub_rlm("q", many),',
              '};',
              'for (const [name, call] of Object.entries(calls)) {',
              '  try { await call(); refused[name] = "accepted"; } catch (error) { refused[name] = error.message; }',
              '}',
            ].join('\n'),
          ),
          repl('SUBMIT(refused)'),
        ],
        { artifacts },
        [],
        // An execution preempts a snapshot still being taken: the answer waits for the first
        // checkpoint, which the next assertions read.
        async (index) => {
          const key = runKey('root question', hashContext('some context'));
          while (index === 1 && (await artifacts.listCheckpoints(key)).length === 0) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        },
      ),
    );
    const refused = result.answer as Record<string, string>;
    // The checkpoint after the first block names the variables it could not read or save.
    const [first] = (await artifacts.listCheckpoints(result.runKey!)).slice(-1);
    const checkpoint = await artifacts.loadCheckpoint(result.runKey!, first!.id);
    expect(checkpoint.variableNames).toEqual(expect.arrayContaining(['a', 'many', 's']));
    // `a` would take 4.5 GiB serialised: sized first and skipped, never serialised.
    expect(Object.keys(checkpoint.serializedVariables)).not.toContain('a');
    expect(checkpoint.metadata.skipped).toMatchObject({
      a: expect.stringContaining('larger than the checkpoint limit'),
    });
    // Saved whole, once (in pieces, which only the sandbox reads: sized here).
    expect(checkpoint.serializedVariables.s!.byteLength).toBeGreaterThan(2 ** 20);
    expect(checkpoint.serializedVariables.s!.byteLength).toBeLessThan(2 ** 20 + 1024);
    // 6,000 references to one object are saved as one: structured clone keeps the sharing.
    const many = deserialize(checkpoint.serializedVariables.many!) as object[];
    expect(many[0]).toBe(many[5_999]);
    for (const name of ['SUBMIT', 'llm_query_batched', 'echo', 'sub_rlm', 'store']) {
      expect(refused[name], name).toMatch(
        new RegExp(
          `^${name}: its arguments are too large to leave the sandbox: over 256 MiB once copied \\(a string counts in full at every place it appears`,
        ),
      );
    }
    // 6,000 references to one object cross once; the prompts' JSON text is measured as a whole.
    expect(refused.objects).toMatch(/^llm_query_batched\(prompts\) needs prompt strings or small/);
    // A child whose context is those 6,000 references gets them as they are, shared.
    expect(refused.childOfObjects).toBe('accepted');
    // Expanding any of them would take 4.5 GiB (6 GiB for the objects), and seconds of work.
    expect(rssGrowthMb).toBeLessThan(1024);
    expect(longestStallMs).toBeLessThan(5_000);
  }, 120_000);

  test('FINAL_VAR of such a variable, in code or in text, is refused and the run goes on', async () => {
    const rootRequests: GenerateRequest[] = [];
    const { result, rssGrowthMb, longestStallMs } = await watchHost(() =>
      run(
        [repl(`${makeShared}\nFINAL_VAR('a')`), 'FINAL_VAR(a)', repl('SUBMIT(a.length)')],
        {},
        rootRequests,
      ),
    );
    expect(result.answer).toBe(4500);
    expect(longestStallMs).toBeLessThan(5_000);
    // The model was told why, after each attempt.
    for (const request of rootRequests.slice(1)) {
      expect(JSON.stringify(request.messages.at(-1))).toContain('too large to leave the sandbox');
    }
    expect(rssGrowthMb).toBeLessThan(1024);
  }, 120_000);
});
