import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import {
  type FakeMessagesServer,
  fakeDelay,
  fakeError,
  fakeText,
  startFakeMessagesServer,
} from '@rlm/anthropic/testing';
import { waitUntil } from '@rlm/core/testing';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { CliInput } from './cli-io.js';
import { runCli } from './run-cli.js';
import { runCliPiped } from './test-support/run-cli-piped.js';
import { textCollector } from './test-support/text-collector.js';
import { useTemporaryDirectory } from './test-support/use-temporary-directory.js';

/** A stdin that claims to be a terminal, so `runCli` starts its REPL. */
class FakeTerminal extends PassThrough {
  readonly isTTY = true;
  setRawMode(): this {
    return this;
  }
}

const { root } = useTemporaryDirectory('rlm-cli-run-');
let server: FakeMessagesServer;

beforeEach(async () => {
  server = await startFakeMessagesServer();
});

afterEach(async () => {
  await server.close();
});

/** Runs `runCli` with piped (non-terminal) stdin holding `input`, without a store. */
function runPiped(argv: string[], input = '') {
  return runCliPiped(['--no-store', ...argv], { baseURL: server.url, input });
}

describe('runCli: flags reach the run', () => {
  test('--sub-model serves llm_query', async () => {
    server.enqueue(
      fakeText('```repl\nconst reply = await llm_query("say hi")\n```'),
      fakeText('hi there'),
      fakeText('FINAL_VAR(reply)'),
    );
    const result = await runPiped([
      'Greet',
      '--model',
      'anthropic:claude-root',
      '--sub-model',
      'anthropic:claude-sub',
    ]);
    expect(result).toMatchObject({ exitCode: 0, stdout: 'hi there\n' });
    expect(result.stderr).toContain('  ⇢ 1 llm_query call: 1 answered');
    const models = server.requests.map((request) => (request.body as { model: string }).model);
    expect(models).toEqual(['claude-root', 'claude-sub', 'claude-root']);
  });

  test('--exec-timeout stops a runaway code block', async () => {
    server.enqueue(fakeText('```repl\nwhile (true) {}\n```'), fakeText('FINAL(gave up)'));
    const result = await runPiped(['Loop', '--exec-timeout', '300']);
    expect(result).toMatchObject({ exitCode: 0, stdout: 'gave up\n' });
    expect(result.stderr).toMatch(/^ {2}✗ .*timed out/im);
  });
});

describe('runCli: piped mode', () => {
  test('the first failed query stops the run with exit 1', async () => {
    server.enqueue(fakeText('FINAL(first)'), fakeError(400), fakeText('FINAL(never asked)'));
    const result = await runPiped(['--quiet'], 'one\ntwo\nthree\n');
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('first\n');
    expect(result.stderr).toMatch(/^rlm: the model call failed: [^\n]+\n$/);
    expect(server.requests).toHaveLength(2);
    expect(server.pendingReplies).toBe(1);
  });

  test('empty input is a usage error', async () => {
    const result = await runPiped(['--quiet'], '\n  \n');
    expect(result).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: 'rlm: no query: pass one as an argument, or pipe queries on stdin, one per line\n',
    });
  });
});

describe('runCli: interactive mode', () => {
  test('answers each line, keeps state, Ctrl-C aborts only the running query', async () => {
    const file = path.join(root, 'lines.txt');
    await writeFile(file, 'a\nb\nc\nd');
    server.enqueue(
      fakeText('```repl\nconst count = context.split("\\n").length\n```'),
      fakeText('FINAL_VAR(count)'),
      fakeDelay(30_000, fakeText('FINAL(never sent)')),
      fakeText('```repl\nconst again = count + 1\n```'),
      fakeText('FINAL_VAR(again)'),
    );
    const stdin = new FakeTerminal();
    const stdout = textCollector();
    const stderr = textCollector(true);
    const exitCode = runCli({
      argv: ['--no-store', '--context', file, '--quiet'],
      env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url, NO_COLOR: '1' },
      stdin: stdin as CliInput,
      stdout,
      stderr,
      onInterrupt: () => () => {},
    });

    await waitUntil(() => stderr.text.includes('› '), 'the prompt');
    stdin.write('How many lines?\r');
    await waitUntil(() => stdout.text === '4\n', 'the first answer');

    const requestsBefore = server.requests.length;
    stdin.write('A slow one\r');
    await waitUntil(() => server.requests.length > requestsBefore, 'the slow request');
    stdin.write('\u0003');
    await waitUntil(() => stderr.text.includes('rlm: aborted\n'), 'the abort');

    stdin.write('One more than before?\r');
    await waitUntil(() => stdout.text === '4\n5\n', 'the third answer');
    stdin.write('exit\r');
    expect(await exitCode).toBe(0);
    expect(stderr.text).toContain('rlm: aborting… (Ctrl-C again to quit at once)');
  });

  test('Ctrl-C at an empty prompt hints how to quit; Ctrl-D quits', async () => {
    const stdin = new FakeTerminal();
    const stderr = textCollector(true);
    const exitCode = runCli({
      argv: ['--no-store', '--quiet'],
      env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url, NO_COLOR: '1' },
      stdin: stdin as CliInput,
      stdout: textCollector(),
      stderr,
      onInterrupt: () => () => {},
    });
    await waitUntil(() => stderr.text.includes('› '), 'the prompt');
    stdin.write('\u0003');
    await waitUntil(() => stderr.text.includes('(type exit or press Ctrl-D to quit)'), 'the hint');
    stdin.write('\u0004');
    expect(await exitCode).toBe(0);
  });
});
