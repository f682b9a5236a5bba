import { defaultAnthropicModelId } from '@rlm/anthropic';
import { describe, expect, test } from 'vitest';
import { type CliOptions, defaultMaxContextBytes } from './run-options/run-options.js';
import { parseArguments } from './parse-arguments.js';
import { UsageError } from './usage-error.js';

function run(argv: string[], env: Record<string, string> = {}): CliOptions {
  const command = parseArguments(argv, env);
  if (command.kind !== 'run') throw new Error(`expected a run, got ${command.kind}`);
  return command.options;
}

function usageError(argv: string[], env: Record<string, string> = {}): string {
  try {
    parseArguments(argv, env);
  } catch (error) {
    expect(UsageError.isInstance(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a UsageError');
}

const defaultSelection = {
  include: [],
  exclude: [],
  gitignore: true,
  defaultExcludes: true,
  strict: false,
};

describe('parseArguments', () => {
  test('defaults', () => {
    expect(run([])).toEqual({
      query: undefined,
      contextFile: undefined,
      contextDirectory: undefined,
      concat: false,
      contextSelection: defaultSelection,
      model: { provider: 'anthropic', modelId: defaultAnthropicModelId },
      subModel: undefined,
      subModels: undefined,
      maxDepth: undefined,
      maxIterations: undefined,
      maxConsecutiveErrors: undefined,
      redactionRatio: undefined,
      maxCostUsd: undefined,
      prices: {},
      maxContextBytes: defaultMaxContextBytes,
      budget: { maxModelCalls: 500, maxTokens: undefined, maxWallTimeMs: 1_800_000 },
      execTimeoutMs: undefined,
      maxCodeBlocks: undefined,
      maxConcurrency: undefined,
      maxResponseChars: undefined,
      modelCalls: {
        timeoutMs: undefined,
        maxRetries: undefined,
        maxRetryAfterMs: undefined,
        stream: undefined,
        maxResponseBytes: undefined,
      },
      quotas: { artifactBytes: undefined, artifactCount: undefined },
      json: false,
      quiet: false,
      storePath: '.rlm/rlm.sqlite',
      resume: false,
      storeErrors: 'fail',
      connectTimeoutMs: 10_000,
      sandbox: 'ses',
      toolsModule: undefined,
      outFile: undefined,
      toolStore: { root: '.rlm/tools', source: 'default' },
      toolSwitches: { readArtifacts: true, repair: true, generationOnly: false },
    });
    expect(defaultMaxContextBytes).toBe(256 * 1024 * 1024);
  });

  test('every flag', () => {
    const options = run([
      'how',
      'many',
      '--context-dir',
      'docs',
      '--concat',
      '-m',
      'anthropic:claude-opus-4-1',
      '--sub-model=anthropic:claude-haiku-4-5',
      '--sub-models',
      'claude-haiku-4-5, anthropic:claude-sonnet-4-5',
      '--max-depth',
      '3',
      '--max-iterations',
      '7',
      '--max-errors',
      '4',
      '--redaction-ratio',
      '.5',
      '--max-context-bytes',
      '1GiB',
      '--max-cost',
      '0.50',
      '--price',
      'claude-opus-4-1=15,75',
      '--exec-timeout',
      '5000',
      '--max-model-calls',
      '40',
      '--max-tokens',
      '200000',
      '--max-wall-time',
      '5m',
      '--max-code-blocks',
      '5',
      '--max-concurrency',
      '8',
      '--max-response-chars',
      '4000',
      '--request-timeout',
      '30000',
      '--max-retries',
      '0',
      '--max-retry-wait',
      '10000',
      '--no-stream',
      '--max-response-bytes',
      '2M',
      '--max-artifact-bytes',
      '64M',
      '--max-artifacts',
      '50',
      '--checkpoint-max-variable-bytes',
      '1G',
      '--checkpoint-max-lag',
      '0',
      '--json',
      '-q',
      '--store',
      'state/x.sqlite',
      '--resume',
      '--store-errors',
      'warn',
      '--sandbox',
      'quickjs',
      '--tools',
      './tools.mjs',
      '-o',
      'answer.md',
      '--toolstore',
      '/var/tools',
      '--no-tool-reads',
      '--no-tool-repair',
      '--tool-generation-only',
      'lines?',
    ]);
    expect(options).toEqual({
      query: 'how many lines?',
      contextFile: undefined,
      contextDirectory: 'docs',
      concat: true,
      contextSelection: defaultSelection,
      model: { provider: 'anthropic', modelId: 'claude-opus-4-1' },
      subModel: { provider: 'anthropic', modelId: 'claude-haiku-4-5' },
      subModels: ['claude-haiku-4-5', 'claude-sonnet-4-5'],
      maxDepth: 3,
      maxIterations: 7,
      maxConsecutiveErrors: 4,
      redactionRatio: 0.5,
      maxCostUsd: 0.5,
      prices: {
        'claude-opus-4-1': {
          inputPerMillionUsd: 15,
          outputPerMillionUsd: 75,
          cacheReadPerMillionUsd: 15,
          cacheWritePerMillionUsd: 15,
        },
      },
      maxContextBytes: 1024 ** 3,
      budget: { maxModelCalls: 40, maxTokens: 200_000, maxWallTimeMs: 300_000 },
      execTimeoutMs: 5000,
      maxCodeBlocks: 5,
      maxConcurrency: 8,
      maxResponseChars: 4_000,
      modelCalls: {
        timeoutMs: 30_000,
        maxRetries: 0,
        maxRetryAfterMs: 10_000,
        stream: false,
        maxResponseBytes: 2 * 1024 ** 2,
      },
      quotas: { artifactBytes: 64 * 1024 ** 2, artifactCount: 50 },
      checkpointMaxVariableBytes: 1024 ** 3,
      checkpointMaxLagMs: 0,
      json: true,
      quiet: true,
      storePath: 'state/x.sqlite',
      resume: true,
      storeErrors: 'warn',
      connectTimeoutMs: 10_000,
      sandbox: 'quickjs',
      toolsModule: './tools.mjs',
      outFile: 'answer.md',
      toolStore: { root: '/var/tools', source: '--toolstore' },
      toolSwitches: { readArtifacts: false, repair: false, generationOnly: true },
    });
  });

  test('--context-dir selection: repeatable globs, switches', () => {
    const options = run([
      '-d',
      'repo',
      '--include',
      '*.md',
      '--include=docs/**',
      '--exclude',
      'dist',
      '--no-gitignore',
      '--no-default-excludes',
      '--strict',
    ]);
    expect(options.contextSelection).toEqual({
      include: ['*.md', 'docs/**'],
      exclude: ['dist'],
      gitignore: false,
      defaultExcludes: false,
      strict: true,
    });
  });

  test('a glob picomatch cannot compile is a usage error', () => {
    expect(usageError(['-d', 'a', '--exclude', 'x'.repeat(70_000)])).toMatch(
      /^--exclude "x{70000}" is not a valid glob; quote it so the shell leaves it alone$/,
    );
  });

  test('--no-store keeps nothing; it conflicts with --store and --resume', () => {
    expect(run(['--no-store']).storePath).toBeUndefined();
    expect(usageError(['--no-store', '--store', 'x.sqlite'])).toBe(
      '--store and --no-store cannot be combined; give one of them',
    );
    expect(usageError(['--no-store', '--resume'])).toBe(
      '--resume needs the artifact store; drop --no-store',
    );
  });

  test('"tools" first is the maintenance command, with its own arguments', () => {
    expect(parseArguments(['tools', 'prune', '--dry-run'], { RLM_TOOLSTORE: '/t' })).toEqual({
      kind: 'tools',
      argv: ['prune', '--dry-run'],
      toolStore: { root: '/t', source: 'RLM_TOOLSTORE' },
    });
    expect(parseArguments(['--toolstore', '/x', 'tools', 'list'], {})).toEqual({
      kind: 'tools',
      argv: ['list'],
      toolStore: { root: '/x', source: '--toolstore' },
    });
    expect(parseArguments(['tools', 'list'], {})).toEqual({
      kind: 'tools',
      argv: ['list'],
      toolStore: { root: '.rlm/tools', source: 'default' },
    });
    expect(run(['how', 'do', 'tools', 'work']).query).toBe('how do tools work');
  });

  test('"runs" and "trace" first are commands with their own arguments; --trace is a file', () => {
    expect(parseArguments(['runs', '--limit', '5'], {})).toEqual({
      kind: 'runs',
      argv: ['--limit', '5'],
    });
    expect(parseArguments(['trace', '--last', '-o', 't.html'], {})).toEqual({
      kind: 'trace',
      argv: ['--last', '-o', 't.html'],
    });
    expect(run(['show', 'the', 'trace']).query).toBe('show the trace');
    expect(run(['q', '--trace', 'run.html']).traceFile).toBe('run.html');
    expect(run(['q']).traceFile).toBeUndefined();
  });

  test('--help and --version win over other flags', () => {
    expect(parseArguments(['-c', 'x', '--help'], {})).toEqual({ kind: 'help' });
    expect(parseArguments(['--version', '--max-depth', 'zero'], {})).toEqual({ kind: 'version' });
    expect(parseArguments(['-v'], {})).toEqual({ kind: 'version' });
  });

  test('the model comes from --model, then RLM_MODEL, then the adapter default', () => {
    const env = { RLM_MODEL: 'anthropic:from-env' };
    expect(run([], env).model.modelId).toBe('from-env');
    expect(run(['--model', 'anthropic:from-flag'], env).model.modelId).toBe('from-flag');
    expect(run([], { RLM_MODEL: '  ' }).model.modelId).toBe(defaultAnthropicModelId);
  });

  test('byte sizes accept binary suffixes', () => {
    const bytes = (text: string) => run(['--max-context-bytes', text]).maxContextBytes;
    expect(bytes('1000')).toBe(1000);
    expect(bytes('512K')).toBe(512 * 1024);
    expect(bytes('256MiB')).toBe(256 * 1024 ** 2);
    expect(bytes('2gb')).toBe(2 * 1024 ** 3);
    expect(bytes('10b')).toBe(10);
  });

  test('--max-wall-time takes milliseconds or a unit', () => {
    const wallTime = (text: string) => run(['--max-wall-time', text]).budget.maxWallTimeMs;
    expect(wallTime('90000')).toBe(90_000);
    expect(wallTime('250ms')).toBe(250);
    expect(wallTime('90s')).toBe(90_000);
    expect(wallTime('30m')).toBe(1_800_000);
    expect(wallTime('2H')).toBe(7_200_000);
  });

  test.each([
    [['--max-model-calls', '0'], '--max-model-calls needs a positive whole number (got "0")'],
    [['--max-tokens', 'many'], '--max-tokens needs a positive whole number (got "many")'],
    [
      ['--max-wall-time', '10 minutes'],
      '--max-wall-time needs a duration such as 600000 (ms), 90s, 30m, 2h or 7d (got "10 minutes")',
    ],
    [
      ['--max-wall-time', '0s'],
      '--max-wall-time needs a duration such as 600000 (ms), 90s, 30m, 2h or 7d (got "0s")',
    ],
    [['--bogus'], 'unknown option --bogus; run rlm --help for the list'],
    [['-x'], 'unknown option -x; run rlm --help for the list'],
    [['--context'], '--context needs a value'],
    [['--json=yes'], '--json takes no value'],
    [
      ['--max-depth', '-1'],
      '--max-depth needs a value; to pass one starting with "-", write --max-depth=<value>',
    ],
    [['--max-depth=-1'], '--max-depth needs a positive whole number (got "-1")'],
    [['--max-depth', '0'], '--max-depth needs a positive whole number (got "0")'],
    [['--max-errors', '0'], '--max-errors needs a positive whole number (got "0")'],
    [['--max-errors=-2'], '--max-errors needs a positive whole number (got "-2")'],
    [
      ['--max-errors', '-2'],
      '--max-errors needs a value; to pass one starting with "-", write --max-errors=<value>',
    ],
    [['--max-iterations', '2.5'], '--max-iterations needs a positive whole number (got "2.5")'],
    [['--max-concurrency', '0'], '--max-concurrency needs a positive whole number (got "0")'],
    [['--exec-timeout', '10s'], '--exec-timeout needs a positive whole number (got "10s")'],
    [['--request-timeout', '0'], '--request-timeout needs a positive whole number (got "0")'],
    [['--request-timeout', '60s'], '--request-timeout needs a positive whole number (got "60s")'],
    [
      ['--max-retries', '-1'],
      '--max-retries needs a value; to pass one starting with "-", write --max-retries=<value>',
    ],
    [['--max-code-blocks', '0'], '--max-code-blocks needs a positive whole number (got "0")'],
    [
      ['--max-response-chars', '20k'],
      '--max-response-chars needs a positive whole number (got "20k")',
    ],
    [['--max-retries=-1'], '--max-retries needs a whole number of 0 or more (got "-1")'],
    [['--max-retries', 'two'], '--max-retries needs a whole number of 0 or more (got "two")'],
    [['--max-retry-wait', '1.5'], '--max-retry-wait needs a whole number of 0 or more (got "1.5")'],
    [
      ['--checkpoint-max-lag=-5'],
      '--checkpoint-max-lag needs a whole number of 0 or more (got "-5")',
    ],
    [['--max-artifacts', '0'], '--max-artifacts needs a positive whole number (got "0")'],
    [['--exec-timeout', '1e3'], '--exec-timeout needs a positive whole number (got "1e3")'],
    [
      ['--max-depth', '99999999999999999999'],
      '--max-depth needs a positive whole number (got "99999999999999999999")',
    ],
    [
      ['--max-context-bytes', 'lots'],
      '--max-context-bytes needs a size in bytes such as 536870912, 512M or 1GiB (got "lots")',
    ],
    [
      ['--max-response-bytes', '0'],
      '--max-response-bytes needs a size in bytes such as 536870912, 512M or 1GiB (got "0")',
    ],
    [
      ['--max-context-bytes', '0M'],
      '--max-context-bytes needs a size in bytes such as 536870912, 512M or 1GiB (got "0M")',
    ],
    [['-c', 'a', '-d', 'b'], '--context and --context-dir cannot be combined; give one of them'],
    [['-c', 'a', '--concat'], '--concat only applies to --context-dir'],
    [['-c', 'a', '--include', '*.md'], '--include only applies to --context-dir'],
    [['--exclude', 'dist'], '--exclude only applies to --context-dir'],
    [['--no-gitignore'], '--no-gitignore only applies to --context-dir'],
    [['--no-default-excludes'], '--no-default-excludes only applies to --context-dir'],
    [['--strict'], '--strict only applies to --context and --context-dir'],
    [
      ['--model', 'replay: '],
      '--model replay: needs a trace: replay:<run.jsonl> (rlm trace <run-id> --jsonl -o run.jsonl) or replay:<run-id> (rlm runs)',
    ],
    [
      ['--model', 'replay:run.jsonl', '--base-url', 'http://127.0.0.1:1/v1'],
      '--base-url does not apply to a replay:, which calls no API; drop --base-url',
    ],
    [['-d', 'a', '--include', ' '], `--include needs a glob such as '*.md' or 'docs/**' (got " ")`],
    [['-d', 'a', '--exclude='], `--exclude needs a glob such as '*.md' or 'docs/**' (got "")`],
    [['   '], 'the query is empty; pass a question, or none for the interactive mode'],
    [
      ['--model', 'claude-sonnet-4-5'],
      '--model must look like anthropic:<model-id>, openai:<model-id>, ollama:<model-id> (got "claude-sonnet-4-5")',
    ],
    [
      ['--model', 'gemini:gemini-2.5-pro'],
      '--model names provider "gemini"; use anthropic:<model-id>, openai:<model-id>, ollama:<model-id> (openai: for any OpenAI-compatible server, with --base-url)',
    ],
    [
      ['--sub-model', 'anthropic:'],
      '--sub-model must look like anthropic:<model-id>, openai:<model-id>, ollama:<model-id> (got "anthropic:")',
    ],
    [
      ['--base-url', 'localhost:8000'],
      '--base-url must be an http(s) URL such as http://127.0.0.1:8000/v1 (got "localhost:8000")',
    ],
    [
      ['--sub-model', 'ollama:qwen3', '--sub-base-url', 'ftp://host/v1'],
      '--sub-base-url must be an http(s) URL such as http://127.0.0.1:8000/v1 (got "ftp://host/v1")',
    ],
    [
      ['--sub-base-url', 'http://127.0.0.1:8000/v1'],
      '--sub-base-url applies to --sub-model; add --sub-model <provider:id> or drop it (without --sub-model the root model, and its --base-url, serve sub-calls)',
    ],
  ])('%j is a usage error', (argv, message) => {
    expect(usageError(argv)).toBe(message);
  });

  test('any provider for --model and --sub-model, each with its own base URL', () => {
    const options = run([
      '--model',
      'openai:gpt-4.1',
      '--base-url',
      'http://10.0.0.5:8000/v1',
      '--sub-model',
      'ollama:qwen2.5-coder:7b',
      '--sub-base-url',
      'http://127.0.0.1:11435/v1',
    ]);
    expect(options.model).toEqual({
      provider: 'openai',
      modelId: 'gpt-4.1',
      baseURL: 'http://10.0.0.5:8000/v1',
    });
    expect(options.subModel).toEqual({
      provider: 'ollama',
      modelId: 'qwen2.5-coder:7b',
      baseURL: 'http://127.0.0.1:11435/v1',
    });
    expect(run([], { RLM_MODEL: 'OLLAMA:llama3.2' }).model).toEqual({
      provider: 'ollama',
      modelId: 'llama3.2',
    });
  });

  test('replay:<trace> takes the rest as the trace, spaces and colons included; it needs no price', () => {
    expect(run(['--model', 'replay:runs/my run: 2.jsonl', '--max-cost', '1']).model).toEqual({
      provider: 'replay',
      modelId: 'runs/my run: 2.jsonl',
    });
    expect(run(['--model', 'replay:20261124-104512-3fa9c1']).model.modelId).toBe(
      '20261124-104512-3fa9c1',
    );
    expect(run(['-c', 'tsconfig.json', '--strict']).contextSelection.strict).toBe(true);
  });

  test('--max-cost with an ollama model whose id holds a colon, priced with its provider prefix', () => {
    const options = run([
      '--model',
      'ollama:qwen2.5-coder:7b',
      '--price',
      'ollama:qwen2.5-coder:7b=0,0',
      '--max-cost',
      '1',
    ]);
    expect(Object.keys(options.prices)).toEqual(['qwen2.5-coder:7b']);
    expect(usageError(['--model', 'ollama:qwen2.5-coder:7b', '--max-cost', '1'])).toMatch(
      /^--max-cost needs a price for qwen2.5-coder:7b/,
    );
  });

  test('--price as the --max-cost error advises, a bare id with colons (qwen3:8b), is kept whole', () => {
    const advice = usageError(['--model', 'ollama:qwen3:8b', '--max-cost', '1']);
    expect(advice).toMatch(/add --price qwen3:8b=<input>,<output>/);
    for (const priced of [
      'qwen3:8b=0.1,0.2',
      'ollama:qwen3:8b=0.1,0.2',
      'OLLAMA:qwen3:8b=0.1,0.2',
    ]) {
      const options = run(['--model', 'ollama:qwen3:8b', '--price', priced, '--max-cost', '1']);
      expect(Object.keys(options.prices)).toEqual(['qwen3:8b']);
    }
    const hub = run([
      '--model',
      'openai:meta-llama/Llama-3.1-8B',
      '--price',
      'meta-llama/Llama-3.1-8B=0.1,0.2',
      '--max-cost',
      '1',
    ]);
    expect(Object.keys(hub.prices)).toEqual(['meta-llama/Llama-3.1-8B']);
  });

  test('a malformed RLM_MODEL names the variable', () => {
    expect(usageError([], { RLM_MODEL: 'gpt-4o' })).toBe(
      'RLM_MODEL must look like anthropic:<model-id>, openai:<model-id>, ollama:<model-id> (got "gpt-4o")',
    );
  });

  test('--max-cost takes a positive number of dollars', () => {
    expect(run(['--max-cost', '.25']).maxCostUsd).toBe(0.25);
    for (const text of ['0', '-1', 'five', '1e3', '$2']) {
      expect(usageError([`--max-cost=${text}`])).toBe(
        `--max-cost needs a positive number of US dollars such as 0.50 (got ${JSON.stringify(text)})`,
      );
    }
  });

  test('--max-cost with a model that has no price names the --price to add', () => {
    expect(usageError(['--max-cost', '1', '--sub-model', 'anthropic:claude-next-9'])).toBe(
      '--max-cost needs a price for claude-next-9, which has none built in; add --price claude-next-9=<input>,<output>[,<cache-read>,<cache-write>] (US dollars per million tokens)',
    );
    const priced = run([
      '--max-cost',
      '1',
      '--sub-model',
      'anthropic:claude-next-9',
      '--price',
      'claude-next-9=1,2',
      '--price',
      'anthropic:claude-next-9=1,3',
    ]);
    expect(priced.prices['claude-next-9']?.outputPerMillionUsd).toBe(3);
    // Without --max-cost an unpriced model is fine: its cost is reported as unknown.
    expect(run(['-m', 'anthropic:claude-next-9']).maxCostUsd).toBeUndefined();
  });

  test("--sub-models: ids of the run's provider, priced under --max-cost", () => {
    expect(
      run(['--sub-models', 'ollama:qwen3:8b,qwen3:14b', '-m', 'ollama:qwen3:4b']).subModels,
    ).toEqual(['qwen3:8b', 'qwen3:14b']);
    expect(usageError(['--sub-models', 'openai:gpt-5'])).toBe(
      `--sub-models: openai:gpt-5 is not a model of this run's provider (anthropic); give ids of anthropic models, e.g. ${defaultAnthropicModelId}`,
    );
    expect(usageError(['--sub-models', 'claude-haiku-4-5,'])).toBe(
      `--sub-models needs model ids separated by commas, e.g. --sub-models ${defaultAnthropicModelId},<another id> (got "claude-haiku-4-5,")`,
    );
    expect(usageError(['--max-cost', '1', '--sub-models', 'claude-haiku-4-5,claude-next-9'])).toBe(
      '--max-cost needs a price for claude-next-9, which has none built in; add --price claude-next-9=<input>,<output>[,<cache-read>,<cache-write>] (US dollars per million tokens)',
    );
  });

  test('--redaction-ratio takes a number above 0, or off', () => {
    expect(run(['--redaction-ratio', 'off']).redactionRatio).toBe(Number.POSITIVE_INFINITY);
    expect(run(['--redaction-ratio', '2']).redactionRatio).toBe(2);
    for (const text of ['0', 'none', '-0.5', '25%']) {
      expect(usageError([`--redaction-ratio=${text}`])).toBe(
        `--redaction-ratio needs a number above 0 such as 0.25, or off (got ${JSON.stringify(text)})`,
      );
    }
  });

  test('--sandbox takes ses (the default) or quickjs', () => {
    expect(run([]).sandbox).toBe('ses');
    expect(run(['--sandbox', 'quickjs']).sandbox).toBe('quickjs');
    expect(() => run(['--sandbox', 'v8'])).toThrow('--sandbox must be ses or quickjs (got "v8")');
  });

  test('--connect-timeout takes a duration (default 10 s)', () => {
    expect(run([]).connectTimeoutMs).toBe(10_000);
    expect(run(['--connect-timeout', '3s']).connectTimeoutMs).toBe(3000);
    expect(run(['--connect-timeout=500']).connectTimeoutMs).toBe(500);
    expect(() => run(['--connect-timeout', 'soon'])).toThrow(
      '--connect-timeout needs a duration such as 600000 (ms), 90s, 30m, 2h or 7d (got "soon")',
    );
  });

  test('--store-errors takes fail or warn', () => {
    expect(run(['--store-errors', 'warn']).storeErrors).toBe('warn');
    expect(() => run(['--store-errors', 'ignore'])).toThrow(
      '--store-errors must be fail or warn (got "ignore")',
    );
  });

  test('store gc is the maintenance command, with --store before it', () => {
    expect(parseArguments(['store', 'gc'], {})).toEqual({
      kind: 'store',
      argv: ['gc'],
      storePath: '.rlm/rlm.sqlite',
    });
    expect(parseArguments(['--store', 'x.sqlite', 'store', 'gc'], {})).toEqual({
      kind: 'store',
      argv: ['gc'],
      storePath: 'x.sqlite',
    });
    expect(parseArguments(['-q', 'store', 'gc'], {})).toMatchObject({ kind: 'run' });
  });

  test('arguments after -- are query words', () => {
    expect(run(['--', '--json', 'is', 'a', 'flag?']).query).toBe('--json is a flag?');
  });
});
