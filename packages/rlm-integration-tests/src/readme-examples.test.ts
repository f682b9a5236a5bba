import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  type FakeMessagesRequest,
  fakeText,
  startFakeMessagesServer,
} from '@rlm/anthropic/testing';
import { fakeChatText, startFakeChatCompletionsServer } from '@rlm/openai/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

/**
 * Every code block of the core README, and the root README's first command and API quick
 * start, run as a user would paste them: each module block in a file of its own, run by this
 * Node (20 is the minimum) in a child process against the built packages; the Anthropic model
 * against the fake Messages API; `llm`, `context` and the like, where a block takes them as
 * given, from a scripted model and small data. A block this file does not know fails the test.
 */

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const repositoryRoot = path.resolve(packageRoot, '../..');
/** Inside this package, so that the blocks' imports resolve to its (workspace) dependencies. */
const blocksDirectory = path.join(packageRoot, 'test-results', 'readme-examples');

let workDirectory: string;
beforeAll(async () => {
  await mkdir(blocksDirectory, { recursive: true });
  workDirectory = await mkdtemp(path.join(tmpdir(), 'rlm-readme-examples-'));
});
afterAll(async () => {
  await rm(workDirectory, { recursive: true, force: true });
  await rm(blocksDirectory, { recursive: true, force: true });
});

interface Block {
  readonly language: string;
  readonly code: string;
  /** The line of its opening fence, for messages. */
  readonly line: number;
}

/** The fenced code blocks of a Markdown file, indentation of list items removed. */
async function blocksOf(file: string): Promise<Block[]> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^( *)```(\w*)\s*$/.exec(lines[index]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && lines[end]!.trim() !== '```')
      body.push(lines[end++]!.slice(indent));
    blocks.push({ language: open[2]!, code: body.join('\n'), line: index + 1 });
    index = end;
  }
  return blocks;
}

const run = promisify(execFile);

/** Runs a file with this Node; resolves its output, or rejects with its stderr in the message. */
async function runNode(
  file: string,
  args: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(process.execPath, [file, ...args], {
      cwd: workDirectory,
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    });
  } catch (error) {
    const failed = error as { stderr?: string; message: string };
    throw new Error(`${path.basename(file)} failed: ${failed.stderr || failed.message}`);
  }
}

/** Writes `parts` as one ES module beside the others and runs it. */
async function runModule(
  name: string,
  parts: readonly string[],
  options: { args?: readonly string[]; env?: Readonly<Record<string, string>> } = {},
) {
  const file = path.join(blocksDirectory, `${name}.mjs`);
  await writeFile(file, parts.join('\n'));
  return runNode(file, options.args, options.env);
}

/** The text of a fake-API request's last message. */
function lastMessage(request: FakeMessagesRequest): string {
  const content = request.messages.at(-1)!.content;
  return typeof content === 'string'
    ? content
    : content.map((block) => (block.type === 'text' ? String(block.text) : '')).join('');
}

/** The fake Messages API, answering each query's first request with `FINAL(<answer>)`. */
function serveAnswers(answers: Readonly<Record<string, string>>) {
  return startFakeMessagesServer({
    handler: (request) => {
      const first = JSON.stringify(request.messages[0]!.content);
      const query = Object.keys(answers).find((candidate) => first.includes(candidate));
      return fakeText(query ? `FINAL(${answers[query]})` : `unexpected: ${lastMessage(request)}`);
    },
  });
}

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

/** Runs `code` as the vitest file `<name>.test.mjs` among the blocks; resolves vitest's output. */
async function runVitestFile(name: string, code: string, args: readonly string[] = []) {
  await writeFile(path.join(blocksDirectory, `${name}.test.mjs`), code);
  const config = path.join(blocksDirectory, 'vitest.config.mjs');
  await writeFile(config, "export default { test: { include: ['*.test.mjs'] } };\n");
  const { stdout } = await run(
    process.execPath,
    [
      path.join(repositoryRoot, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--config',
      config,
      '--root',
      blocksDirectory,
      `${name}.test.mjs`,
      ...args,
    ],
    {
      cwd: blocksDirectory,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
    },
  );
  return stdout;
}

/** A scripted `llm` for the blocks that take one as given: its replies, then `fallback`. */
function givenModel(replies: readonly string[], settings = '{}') {
  return `import { createScriptedModel as scriptedModel } from '@rlm/core/testing';
const llm = scriptedModel(${JSON.stringify(replies)}, ${settings});`;
}

/** How each block is run and what it must print, found by a piece of its text. */
interface Harness {
  readonly mark: string;
  readonly run: (code: string) => Promise<void>;
}

const coreHarnesses: Harness[] = [
  {
    mark: 'npm i @rlm/core',
    run: async (code) => {
      const names = code
        .replace(/^npm i /, '')
        .trim()
        .split(/\s+/);
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) {
        const folder = path.join(repositoryRoot, 'packages', name.replace('@rlm/', 'rlm-'));
        const manifest = JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8'));
        expect(manifest, name).toMatchObject({ name });
        expect(manifest.private, `${name} is published`).toBeUndefined();
      }
    },
  },
  {
    mark: 'node ask.mjs corpus.txt',
    run: async (code) => {
      await using server = await serveAnswers({
        'Which vendors are mentioned most?': 'ACME',
        'And which least?': 'Globex',
      });
      const corpus = path.join(workDirectory, 'corpus.txt');
      await writeFile(corpus, 'ACME sold to Globex. ACME sold to Initech.');
      const { stdout } = await runModule('core-use', [code], {
        args: [corpus],
        env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url },
      });
      expect(stdout).toMatch(/^ACME 1 \{/);
      expect(stdout.trimEnd().split('\n').at(-1)).toBe('Globex');
      const models = server.requests.map((request) => (request.body as { model: string }).model);
      expect(models).toEqual(['claude-sonnet-5-5', 'claude-sonnet-5-5']);
    },
  },
  {
    mark: 'memory: { maxContexts',
    run: async (code) => {
      const { stdout } = await runModule('core-session-memory', [
        givenModel(['FINAL(first)', 'FINAL(second)']),
        `import { createMemoryArtifactStore } from '@rlm/artifacts';
const artifacts = createMemoryArtifactStore();`,
        code,
        `console.log((await rlm.query('q1', 'context one')).answer);
console.log((await rlm.query('q2', 'context two')).answer);
await rlm.dispose();`,
      ]);
      expect(stdout).toBe('first\nsecond\n');
    },
  },
  {
    mark: "name: 'fetch_invoice'",
    run: async (code) => {
      const { stdout } = await runModule('core-artifacts', [
        givenModel([
          repl(
            'const invoice = await fetch_invoice({ id: "A-1" }, { outputs: [{ name: "invoice", type: "data" }] });\nprint(JSON.stringify(await load("invoice")));',
          ),
          'FINAL(the total of A-1 is 42)',
          'FINAL(resumed)',
        ]),
        `const db = { invoices: { find: async (id) => ({ id, total: 42 }) } };
const question = 'What is the total of invoice A-1?';
const corpus = 'Invoice A-1: 42 EUR.';`,
        code,
        `console.log(result.answer);
console.log(resumed.answer);
console.log(JSON.stringify(llm.requests[1].messages.at(-1)));
await rlm.dispose();
await artifacts.close();`,
      ]);
      const [answer, resumed, shown] = stdout.trimEnd().split('\n');
      expect(answer).toBe('the total of A-1 is 42');
      expect(resumed).toBe('resumed');
      // The tool ran, its output was stored as the record "invoice" and loaded back.
      expect(shown).toContain('{\\"id\\":\\"A-1\\",\\"total\\":42}');
    },
  },
  {
    mark: "name: 'find_orders'",
    run: async (code) => {
      const { stdout } = await runModule('core-typed', [
        givenModel([
          repl(
            'const orders = await find_orders({ customer: "ACME" });\nSUBMIT({ total: orders.reduce((sum, order) => sum + order.amount, 0), currency: "EUR" });',
          ),
        ]),
        `const db = { orders: async (customer, limit) => [{ customer, amount: 100 }, { customer, amount: 20 }].slice(0, limit) };`,
        code,
        `console.log(JSON.stringify(answer), typeof answer.total);
await rlm.dispose();`,
      ]);
      expect(stdout).toBe('{"total":120,"currency":"EUR"} number\n');
    },
  },
  {
    mark: 'await delegate("csv_parser"',
    run: async (code) => {
      const toolRoot = path.join(workDirectory, 'tools');
      const { stdout } = await runModule('core-durable-tools', [
        `import { createRLM } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
import { createToolStore } from '@rlm/toolstore';
const llm = createScriptedModel([], {
  fallback: (request) =>
    request.system.startsWith('You write the code of one method')
      ? ${JSON.stringify('```js\n(text) => text.split("\\n").map((line) => line.split(","))\n```')}
      : ${JSON.stringify(repl(`${code}\nSUBMIT(rows);`))},
});
const rlm = createRLM({ llm, sandbox: createSesSandbox(), durableTools: { store: createToolStore({ root: ${JSON.stringify(toolRoot)} }) } });
try {
  console.log(JSON.stringify((await rlm.query('Parse the CSV', 'a,b\\n1,2')).answer));
} finally {
  await rlm.dispose();
}`,
      ]);
      expect(stdout).toBe('[["a","b"],["1","2"]]\n');
    },
  },
  {
    mark: 'Utf8Text.fromBytes(bytes)',
    run: async (code) => {
      await writeFile(path.join(workDirectory, 'corpus.txt'), 'ACME sold to Globex. ACME again.');
      const { stdout } = await runModule('core-utf8-text', [
        givenModel([
          repl('print(typeof context, context.length, context.split(" ")[0]);'),
          'FINAL(ACME)',
        ]),
        `import { createRLM } from '@rlm/core';
import { createSesSandbox } from '@rlm/sandbox-ses';
const rlm = createRLM({ llm, sandbox: createSesSandbox() });`,
        code,
        `console.log(result.answer);
console.log(JSON.stringify(llm.requests[1].messages.at(-1)));
await rlm.dispose();`,
      ]);
      const [answer, shown] = stdout.trimEnd().split('\n');
      expect(answer).toBe('ACME');
      // Model code saw the file's text as a string.
      expect(shown).toContain('string 32 ACME');
    },
  },
  {
    mark: 'new OpenAI({ fetch: keepAliveFetch })',
    run: async (code) => {
      await using server = await startFakeChatCompletionsServer({
        replies: [fakeChatText('pong')],
      });
      const { stdout } = await runModule(
        'core-keep-alive-fetch',
        [
          code,
          // The request must go through keepAliveFetch, not the global fetch.
          `globalThis.fetch = () => Promise.reject(new Error('the global fetch was used'));
const completion = await client.chat.completions.create({
  model: 'gpt-4.1',
  messages: [{ role: 'user', content: 'ping' }],
});
console.log(completion.choices[0].message.content);`,
        ],
        { env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.url } },
      );
      expect(stdout).toBe('pong\n');
    },
  },
  {
    mark: "subModels: ['claude-haiku-4-5', 'claude-opus-4-5']",
    run: async (code) => {
      await using server = await serveAnswers({ 'Which vendors are mentioned most?': 'ACME' });
      const { stdout } = await runModule(
        'core-sub-models',
        [
          `import { createRLM } from '@rlm/core';
import { createAnthropicModel } from '@rlm/anthropic';
import { createSesSandbox } from '@rlm/sandbox-ses';`,
          code,
          `console.log((await rlm.query('Which vendors are mentioned most?', 'ACME, Globex')).answer);
await rlm.dispose();`,
        ],
        { env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url } },
      );
      expect(stdout).toBe('ACME\n');
      // The system prompt offers exactly the ids allowed.
      const system = JSON.stringify((server.requests[0]!.body as { system: unknown }).system);
      expect(system).toContain('claude-haiku-4-5');
      expect(system).toContain('claude-opus-4-5');
    },
  },
  {
    mark: "prices: { 'my-model'",
    run: async (code) => {
      const { stdout } = await runModule('core-prices', [
        givenModel(['FINAL(cheap)'], "{ modelId: 'my-model' }"),
        `const context = 'some context';`,
        code,
        `console.log(usage.costUsd, JSON.stringify(callUsage.map((entry) => entry.kind)));
await rlm.dispose();`,
      ]);
      // 10 input tokens at $1 and 10 output tokens at $4 per million.
      expect(stdout).toBe('0.00005 ["root"]\n');
    },
  },
  {
    mark: 'const sandbox = createScriptedSandbox({',
    run: async (code) => {
      const { stdout } = await runModule('core-scripted', [code, 'console.log(answer);']);
      expect(stdout).toBe('42\n');
    },
  },
  {
    mark: 'runSandboxConformance({',
    run: async (code) => {
      // The suite registers through vitest; two of its tests run here (the adapter's own
      // package runs them all).
      const stdout = await runVitestFile('sandbox-conformance', code, [
        '-t',
        'top-level declarations persist|errors are values',
      ]);
      expect(stdout).toMatch(/Tests +2 passed/);
    },
  },
  {
    mark: "await timeScaled(() => sandbox.execute('while (true) {}'))",
    run: async (code) => {
      // The block bounds a real SES sandbox's timeout in reference milliseconds.
      const stdout = await runVitestFile(
        'time-scaled',
        `import { expect, test } from 'vitest';
import { timeScaled } from '@rlm/core/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
test('a runaway loop is stopped within its timeout, in reference milliseconds', async () => {
  const timeoutMs = 500;
  const sandbox = await createSesSandbox()({ hostFunctions: {}, limits: { timeoutMs } });
  try {
${code}
  } finally {
    await sandbox.dispose();
  }
});`,
      );
      expect(stdout).toMatch(/Tests +1 passed/);
    },
  },
];

describe('the README examples run as written', () => {
  test('every block of the core README', async () => {
    const blocks = await blocksOf(path.join(repositoryRoot, 'packages/rlm-core/README.md'));
    const used = new Set<Harness>();
    for (const block of blocks) {
      const matching = coreHarnesses.filter((harness) => block.code.includes(harness.mark));
      expect(matching, `README.md:${block.line} needs exactly one harness`).toHaveLength(1);
      used.add(matching[0]!);
      await matching[0]!.run(block.code);
    }
    expect(used.size).toBe(coreHarnesses.length);
  }, 180_000);

  test("the root README's API quick start", async () => {
    const blocks = await blocksOf(path.join(repositoryRoot, 'README.md'));
    const quickStart = blocks.filter((block) => block.code.includes("from '@rlm/core'"));
    expect(quickStart).toHaveLength(1);
    await using server = await serveAnswers({ 'What changed between versions?': 'the price' });
    const notes = path.join(workDirectory, 'notes.txt');
    await writeFile(notes, 'v1: 10 EUR. v2: 12 EUR.');
    const { stdout } = await runModule('root-quick-start', [quickStart[0]!.code], {
      args: [notes],
      env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url },
    });
    expect(stdout).toMatch(/^the price \{\n {2}iterations: 1,\n {2}usage: \{/);
  }, 60_000);

  test("the root README's first command: the shipped example replays offline", async () => {
    const blocks = await blocksOf(path.join(repositoryRoot, 'README.md'));
    const first = blocks[0]!.code.split('\n').find((line) => !line.startsWith('#'))!;
    // `npm i -g pnpm@10 && pnpm install && pnpm build && pnpm -s rlm <arguments>`
    const command = first.split(' && ').at(-1)!;
    expect(command.startsWith('pnpm -s rlm ')).toBe(true);
    const args = [...command.slice('pnpm -s rlm '.length).matchAll(/"([^"]*)"|(\S+)/g)].map(
      (match) => match[1] ?? match[2]!,
    );
    // In a copy of the repository's examples, so the run's store stays out of the checkout.
    const copy = await mkdtemp(path.join(tmpdir(), 'rlm-readme-first-'));
    try {
      await cp(path.join(repositoryRoot, 'examples'), path.join(copy, 'examples'), {
        recursive: true,
      });
      // The package's own bin: @rlm/cli is a dependency, so the task graph builds it first.
      const bin = fileURLToPath(import.meta.resolve('@rlm/cli/package.json')).replace(
        /package\.json$/,
        'bin/rlm.js',
      );
      const { stdout } = await run(process.execPath, [bin, ...args], {
        cwd: copy,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '' },
      });
      expect(stdout).toMatch(/^2 incidents were caused by an expired certificate:\n/);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  }, 60_000);
});
