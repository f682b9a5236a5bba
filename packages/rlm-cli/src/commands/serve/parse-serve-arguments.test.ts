import { describe, expect, test } from 'vitest';
import { UsageError } from '../../usage-error.js';
import {
  defaultMaxBodyBytes,
  defaultServeConcurrency,
  defaultServePort,
  defaultShutdownGraceMs,
  parseServeArguments,
  type ServeOptions,
} from './parse-serve-arguments.js';

const env: Readonly<Record<string, string>> = { ANTHROPIC_API_KEY: 'sk-ant-x' };

function options(
  argv: readonly string[],
  command: 'serve' | 'mcp' = 'serve',
  withEnv = env,
): ServeOptions {
  const parsed = parseServeArguments(argv, withEnv, command);
  if (parsed.kind !== 'serve') throw new Error('expected options');
  return parsed.options;
}

describe('parseServeArguments', () => {
  test('defaults: loopback, the default port, no token, no context root for serve', () => {
    const parsed = options(['-m', 'anthropic:claude-sonnet-5-5']);
    expect(parsed).toMatchObject({
      host: '127.0.0.1',
      port: defaultServePort,
      token: undefined,
      concurrency: defaultServeConcurrency,
      contextRoot: undefined,
      maxBodyBytes: defaultMaxBodyBytes,
      shutdownGraceMs: defaultShutdownGraceMs,
      anyModel: false,
      mcp: false,
    });
    expect(parsed.models.map((model) => model.id)).toEqual(['rlm:anthropic:claude-sonnet-5-5']);
  });

  test('its own flags, with = or a separate value, mixed with run flags', () => {
    const parsed = options([
      '--host=0.0.0.0',
      '--token',
      'secret',
      '--port',
      '0',
      '--concurrency',
      '8',
      '--context-root',
      'docs',
      '--max-body-bytes',
      '1M',
      '--shutdown-grace',
      '2m',
      '-m',
      'openai:gpt-5',
      '--sub-model',
      'ollama:qwen3:8b',
      '--serve-model',
      'rlm:anthropic:claude-haiku-4-5',
      '--serve-model=openai:gpt-5+ollama:qwen3:8b',
      '--any-model',
      '--mcp',
      '--max-model-calls',
      '40',
      '--max-cost',
      '0.5',
      '--price',
      'qwen3:8b=0.1,0.2',
      '--no-store',
    ]);
    expect(parsed).toMatchObject({
      host: '0.0.0.0',
      token: 'secret',
      port: 0,
      concurrency: 8,
      contextRoot: 'docs',
      maxBodyBytes: 1024 * 1024,
      shutdownGraceMs: 120_000,
      anyModel: true,
      mcp: true,
    });
    // The default model first; a --serve-model equal to it is not listed twice.
    expect(parsed.models.map((model) => model.id)).toEqual([
      'rlm:openai:gpt-5+ollama:qwen3:8b',
      'rlm:anthropic:claude-haiku-4-5',
    ]);
    expect(parsed.run.budget.maxModelCalls).toBe(40);
    expect(parsed.run.maxCostUsd).toBe(0.5);
    expect(parsed.run.storePath).toBeUndefined();
  });

  test('the token may come from RLM_SERVER_TOKEN; rlm mcp defaults its root to the working directory', () => {
    expect(options(['--host', '::'], 'serve', { ...env, RLM_SERVER_TOKEN: 't0k' }).token).toBe(
      't0k',
    );
    expect(options([], 'mcp').contextRoot).toBe('.');
    expect(options(['--http', '--port', '9000'], 'mcp')).toMatchObject({ mcp: true, port: 9000 });
  });

  test.each([
    [['--host', '0.0.0.0'], 'serve', '--host 0.0.0.0 lets other machines in'],
    [['--token', ''], 'serve', '--token is empty'],
    [['what', 'now'], 'serve', 'rlm serve takes no "what"'],
    [['--context', 'a.txt'], 'serve', 'rlm serve takes no --context: requests bring their context'],
    [['--json'], 'mcp', 'rlm mcp takes no --json'],
    [['--port', 'http'], 'serve', '--port needs a port number from 0 to 65535 (got "http")'],
    [['--port', '70000'], 'serve', '--port needs a port number from 0 to 65535'],
    [['--concurrency', '0'], 'serve', '--concurrency needs a positive whole number'],
    [['--shutdown-grace', 'soon'], 'serve', '--shutdown-grace needs a duration'],
    [['--serve-model', 'gpt-5'], 'serve', '--serve-model must look like'],
    [['--serve-model', 'a:b+c:d+e:f'], 'serve', '--serve-model must look like'],
    [['--serve-model', 'acme:model'], 'serve', '--serve-model names provider "acme"'],
    [['--port', '9000'], 'mcp', '--port applies to rlm mcp --http'],
    [['--mcp'], 'mcp', 'unknown option --mcp'],
    [['--max-tokens', '5'], 'serve', 'rlm serve takes no --max-tokens'],
  ] as const)('%j (%s): %s', (argv, command, message) => {
    expect(() => parseServeArguments(argv, env, command)).toThrow(UsageError);
    expect(() => parseServeArguments(argv, env, command)).toThrow(message);
  });

  test('--help wins', () => {
    expect(parseServeArguments(['--port', '1', '--help'], env, 'serve')).toEqual({ kind: 'help' });
  });
});
