import { fakeText, startFakeMessagesServer } from '@rlm/anthropic/testing';
import {
  type FakeChatRequest,
  fakeChatText,
  fakeChatToolCall,
  startFakeChatCompletionsServer,
} from '@rlm/openai/testing';
import { describe, expect, test } from 'vitest';
import { type BuiltRlmResult, runBuiltRlm } from './start-built-rlm.js';
import { useBuiltRlmWorkspace } from './use-built-rlm-workspace.js';

/**
 * Providers end to end: the built bin as a real process, the openai SDK against the strict
 * fake Chat Completions server, and the Anthropic SDK against the fake Messages API.
 */

const openAIKey = 'sk-proj-cli-test-key-0123456789';
const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

const { root } = useBuiltRlmWorkspace('rlm-cli-providers-');

/**
 * Runs the bin with only `PATH` and `env` in its environment; `--no-store` always. With
 * `terminal`, it runs under `script`, on a pseudo-terminal (stdout and stderr then both arrive
 * on stdout).
 */
async function rlm(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  terminal = false,
): Promise<BuiltRlmResult> {
  return runBuiltRlm([...args, '--no-store'], {
    cwd: root,
    env: { NO_COLOR: '1', ...env },
    terminal,
  });
}

describe('rlm with OpenAI-compatible models', () => {
  test('--model openai:<id> --base-url: answers through the Chat Completions API', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey: openAIKey,
      replies: [
        fakeChatText(repl('const n = 6 * 7;')),
        fakeChatToolCall('SUBMIT', { variable: 'n' }),
      ],
    });
    const result = await rlm(['What is 6 x 7?', '-m', 'openai:gpt-4.1', '--base-url', server.url], {
      OPENAI_API_KEY: openAIKey,
    });
    expect(result.stderr).not.toContain(openAIKey);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('42\n');
    expect(server.requests.map((request) => request.status)).toEqual([200, 200]);
    expect((server.requests[0]!.body as FakeChatRequest).model).toBe('gpt-4.1');
  });

  test('on a terminal the streamed prose is shown once, then the code and the answer', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey: openAIKey,
      replies: [
        fakeChatText(
          `Streaming prose, first line.\nSecond line of prose.\n${repl('print("ran");')}`,
        ),
        fakeChatText('FINAL(streamed)'),
      ],
    });
    const result = await rlm(
      ['Stream?', '-m', 'openai:gpt-4.1', '--base-url', server.url],
      { OPENAI_API_KEY: openAIKey },
      true,
    );
    expect(result.code).toBe(0);
    const screen = result.stdout.replaceAll('\r', '');
    expect(screen.split('Streaming prose, first line.').length).toBe(2);
    expect(screen.indexOf('Second line of prose.')).toBeLessThan(screen.indexOf('print("ran")'));
    expect(screen).toContain('streamed');
  });

  test('anthropic: on a terminal the streamed prose is shown once, then the code and the answer', async () => {
    const anthropicKey = 'sk-ant-cli-stream-key-0123456789';
    await using server = await startFakeMessagesServer({
      apiKey: anthropicKey,
      replies: [
        fakeText(`Streamed by Claude, first line.\nSecond line of it.\n${repl('print("ran");')}`, {
          stream: { deltaChars: 5 },
        }),
        fakeText('FINAL(claude streamed)'),
      ],
    });
    const result = await rlm(
      ['Stream?', '-m', 'anthropic:claude-sonnet-5-5'],
      { ANTHROPIC_API_KEY: anthropicKey, ANTHROPIC_BASE_URL: server.url },
      true,
    );
    expect(result.code).toBe(0);
    expect(server.requests.map((request) => (request.body as { stream?: boolean }).stream)).toEqual(
      [true, true],
    );
    const screen = result.stdout.replaceAll('\r', '');
    expect(screen.split('Streamed by Claude, first line.').length).toBe(2);
    expect(screen.indexOf('Second line of it.')).toBeLessThan(screen.indexOf('print("ran")'));
    expect(screen).toContain('claude streamed');
  });

  test('--no-stream: a gateway that cannot stream is asked for one body, by root and sub-model', async () => {
    const anthropicKey = 'sk-ant-cli-no-stream-key-0123456789';
    await using messages = await startFakeMessagesServer({
      apiKey: anthropicKey,
      streaming: false,
      replies: [fakeText(repl('const hi = await llm_query("say hi");')), fakeText('FINAL_VAR(hi)')],
    });
    await using chat = await startFakeChatCompletionsServer({
      apiKey: null,
      replies: [fakeChatText('hi from the sub-model')],
    });
    const result = await rlm(
      [
        'Greet?',
        '-m',
        'anthropic:claude-sonnet-5-5',
        '--sub-model',
        'ollama:qwen3:8b',
        '--sub-base-url',
        chat.url,
        '--no-stream',
      ],
      { ANTHROPIC_API_KEY: anthropicKey, ANTHROPIC_BASE_URL: messages.url },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('hi from the sub-model\n');
    expect(messages.requests.map((request) => request.status)).toEqual([200, 200]);
    expect(chat.requests.map((request) => (request.body as FakeChatRequest).stream)).toEqual([
      undefined,
    ]);
  });

  test('OPENAI_BASE_URL and RLM_MODEL are honoured without flags', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey: openAIKey,
      replies: [fakeChatText('FINAL(from the environment)')],
    });
    const result = await rlm(['Where from?', '--quiet'], {
      OPENAI_API_KEY: openAIKey,
      OPENAI_BASE_URL: server.url,
      RLM_MODEL: 'openai:gpt-4.1-mini',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('from the environment\n');
    expect((server.requests[0]!.body as FakeChatRequest).model).toBe('gpt-4.1-mini');
  });

  test('openai: without OPENAI_API_KEY: exit 2, one line naming it, no model call', async () => {
    const result = await rlm(['Question?', '-m', 'openai:gpt-4.1']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^rlm: OPENAI_API_KEY is not set; export OPENAI_API_KEY=[^\n]+\n$/,
    );
  });

  test('an anthropic sub-model without ANTHROPIC_API_KEY: exit 2 before any model call', async () => {
    await using server = await startFakeChatCompletionsServer({ apiKey: null });
    const result = await rlm([
      'Question?',
      '-m',
      'ollama:llama3.2',
      '--base-url',
      server.url,
      '--sub-model',
      'anthropic:claude-haiku-4-5',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^rlm: ANTHROPIC_API_KEY is not set; [^\n]+\n$/);
    expect(server.requests).toHaveLength(0);
  });

  test('an Anthropic root model with a local ollama sub-model for llm_query', async () => {
    await using messages = await startFakeMessagesServer({
      replies: [
        fakeText(repl('const summary = await llm_query("Summarize: the cat sat");')),
        fakeText('FINAL_VAR(summary)'),
      ],
    });
    await using local = await startFakeChatCompletionsServer({
      apiKey: null,
      replies: [fakeChatText('a cat sat')],
    });
    const result = await rlm(
      [
        'Summarize',
        '--quiet',
        '--sub-model',
        'ollama:qwen2.5-coder:7b',
        '--sub-base-url',
        local.url,
      ],
      {
        ANTHROPIC_API_KEY: 'sk-ant-cli-test-key',
        ANTHROPIC_BASE_URL: messages.url,
        OPENAI_API_KEY: openAIKey,
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('a cat sat\n');
    expect(messages.requests).toHaveLength(2);
    expect(local.requests).toHaveLength(1);
    const body = local.requests[0]!.body as FakeChatRequest;
    expect(body.model).toBe('qwen2.5-coder:7b');
    expect(JSON.stringify(body.messages)).toContain('Summarize: the cat sat');
    // The OpenAI key stays home: a local server gets none.
    expect(local.requests[0]!.headers.authorization).not.toContain(openAIKey);
  });

  test('a sub-model that cannot be reached: model code is told the sub-model flags', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey: null,
      replies: [
        fakeChatText(
          repl(
            'try { await llm_query("hi"); } catch (error) { print("CAUGHT " + error.message); }',
          ),
        ),
        fakeChatText('FINAL(done)'),
      ],
    });
    const result = await rlm([
      'Question?',
      '-m',
      'ollama:llama3.2',
      '--base-url',
      server.url,
      '--sub-model',
      'ollama:qwen3',
      // Nothing listens on the discard port.
      '--sub-base-url',
      'http://127.0.0.1:9/v1',
      '--max-retries',
      '0',
    ]);
    expect(result.code).toBe(0);
    const seenByModel = JSON.stringify(server.requests[1]!.body);
    expect(seenByModel).toContain('CAUGHT');
    expect(seenByModel).toMatch(
      /Check that the ollama server is running and --sub-base-url, or raise --max-retries/,
    );
    expect(seenByModel).not.toMatch(/baseURL|OPENAI_BASE_URL/);
  });

  test('an ollama model that refuses tools: the run falls back to the text protocol', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey: null,
      toolsUnsupported: true,
      replies: [fakeChatText('FINAL(plain text works)')],
    });
    const result = await rlm(['Question?', '-m', 'ollama:gemma3:1b', '--base-url', server.url]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('plain text works\n');
    expect(server.requests.map((request) => request.status)).toEqual([400, 200]);
  });

  test('--price qwen3:8b prices ollama:qwen3:8b: a run under --max-cost reports its cost', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey: null,
      replies: [
        fakeChatText('FINAL(priced)', {
          usage: { promptTokens: 1_000_000, completionTokens: 500_000 },
        }),
      ],
    });
    const result = await rlm([
      'Question?',
      '-m',
      'ollama:qwen3:8b',
      '--base-url',
      server.url,
      '--price',
      'qwen3:8b=0.1,0.2',
      '--max-cost',
      '5',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { answer: string; usage: { costUsd?: number } };
    expect(report.answer).toBe('priced');
    // 1M input tokens at $0.1 and 0.5M output tokens at $0.2 per million.
    expect(report.usage.costUsd).toBeCloseTo(0.2, 10);
  });

  test('an unreachable Ollama: one line naming Ollama, --base-url and --max-retries, not OPENAI_BASE_URL or the API settings', async () => {
    const closed = await startFakeChatCompletionsServer({ apiKey: null });
    await closed.close();
    const result = await rlm([
      'Question?',
      '-m',
      'ollama:qwen3:8b',
      '--base-url',
      closed.url,
      '--max-retries',
      '0',
    ]);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(
      /^rlm: the model call failed: could not reach the Chat Completions API at .+\. Check that the ollama server is running and --base-url, or raise --max-retries\.$/,
    );
    expect(result.stderr).not.toMatch(/baseURL|maxRetries|OPENAI_BASE_URL/);
  });
});

/**
 * `NODE_OPTIONS` for the bin that prints `loaded <package>` on stderr for each of these
 * packages the first time the process resolves a module of it: the provider SDKs, and what only
 * `rlm serve`, `rlm mcp` and the queue use.
 */
function reportLoadedPackages(): string {
  const watched = [
    '@anthropic-ai/sdk',
    'openai',
    '@modelcontextprotocol/sdk',
    'hono',
    'ioredis',
    'bullmq',
  ];
  const hooks = `const seen = new Set();
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  for (const name of ${JSON.stringify(watched)}) {
    if (!seen.has(name) && resolved.url.includes('/node_modules/' + name + '/')) {
      seen.add(name);
      process.stderr.write('loaded ' + name + '\\n');
    }
  }
  return resolved;
}`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  return `--import=data:text/javascript,${encodeURIComponent(register)}`;
}

function loadedPackages(stderr: string): string[] {
  return [...stderr.matchAll(/^loaded (\S+)$/gm)].map((match) => match[1]!).sort();
}

describe('rlm loads the SDK of the providers a run names, and no other', () => {
  test('openai: the openai SDK only; no Anthropic SDK, server, MCP SDK or Redis client', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey: null,
      replies: [fakeChatText('FINAL(from openai)')],
    });
    const result = await rlm(
      ['Which?', '--quiet', '-m', 'openai:gpt-4.1', '--base-url', server.url],
      {
        NODE_OPTIONS: reportLoadedPackages(),
      },
    );
    expect(result.stdout).toBe('from openai\n');
    expect(loadedPackages(result.stderr)).toEqual(['openai']);
  });

  test('ollama: the openai SDK only', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey: null,
      replies: [fakeChatText('FINAL(from ollama)')],
    });
    const result = await rlm(
      ['Which?', '--quiet', '-m', 'ollama:qwen3:8b', '--base-url', server.url],
      {
        NODE_OPTIONS: reportLoadedPackages(),
      },
    );
    expect(result.stdout).toBe('from ollama\n');
    expect(loadedPackages(result.stderr)).toEqual(['openai']);
  });

  test('anthropic: the Anthropic SDK only; with an ollama sub-model, both', async () => {
    await using messages = await startFakeMessagesServer({
      replies: [fakeText('FINAL(from anthropic)'), fakeText('FINAL(again)')],
    });
    const env = {
      NODE_OPTIONS: reportLoadedPackages(),
      ANTHROPIC_API_KEY: 'sk-ant-cli-test-key',
      ANTHROPIC_BASE_URL: messages.url,
    };
    const alone = await rlm(['Which?', '--quiet', '-m', 'anthropic:claude-x'], env);
    expect(alone.stdout).toBe('from anthropic\n');
    expect(loadedPackages(alone.stderr)).toEqual(['@anthropic-ai/sdk']);
    const withSub = await rlm(
      ['Which?', '--quiet', '-m', 'anthropic:claude-x', '--sub-model', 'ollama:qwen3:8b'],
      env,
    );
    expect(withSub.stdout).toBe('again\n');
    expect(loadedPackages(withSub.stderr)).toEqual(['@anthropic-ai/sdk', 'openai']);
  });
});
