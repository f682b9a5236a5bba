import {
  type FakeMessagesServer,
  type FakeReply,
  fakeEndless,
  fakeError,
  fakeHang,
  fakeRaw,
  fakeText,
  fakeToolUse,
} from '@rlm/anthropic/testing';
import { timeScaled } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { type BuiltRlmResult, rlmLines, runBuiltRlm } from './start-built-rlm.js';
import { useBuiltRlmWorkspace } from './use-built-rlm-workspace.js';

/**
 * A model API that misbehaves, end to end: the built bin as a real process against the fake
 * Messages API hanging, rate limiting, sending bodies that are not the API's JSON, responses
 * cut at max_tokens and responses with too many code blocks.
 */

const { root, serve } = useBuiltRlmWorkspace('rlm-cli-api-faults-');

interface RunResult extends BuiltRlmResult {
  readonly elapsedMs: number;
  /** `elapsedMs` scaled by the machine's load (`timeScaled`). */
  readonly scaledMs: number;
  readonly server: FakeMessagesServer;
}

/** Runs the bin once against a fake API serving `replies`; `--no-store` unless told. */
async function rlm(args: readonly string[], replies: readonly FakeReply[]): Promise<RunResult> {
  const server = await serve(replies);
  const { value, wallMs, scaledMs } = await timeScaled(() =>
    runBuiltRlm([...args, '--no-store'], { cwd: root, baseURL: server.url }),
  );
  return { ...value, elapsedMs: wallMs, scaledMs, server };
}

const answer = fakeText('FINAL(42)');

describe('a model API that misbehaves', () => {
  test.each([
    ['streamed', []],
    ['unstreamed', ['--no-stream']],
  ])(
    'an answer that never ends (%s) is cut at --max-response-bytes, retried once, then one line names the flag',
    {
      timeout: 60_000,
    },
    async (_how, flags) => {
      const result = await rlm(
        ['What is the answer?', '--max-response-bytes', '256K', '--max-retries', '1', ...flags],
        [fakeEndless(), fakeEndless()],
      );
      expect(result.code).toBe(1);
      const lines = rlmLines(result.stderr);
      expect(lines).toEqual([
        'rlm: step 1: the API sent more than 256 KiB; retrying in 0.5 s (attempt 2 of 2)',
        expect.stringMatching(
          /^rlm: the model call failed: the Messages API sent more than --max-response-bytes \(256 KiB\); gave up after 2 attempts over [\d.]+ m?s\. Raise --max-response-bytes, or check that --base-url is the API \(an answer that never ends is cut at the cap\)\.$/,
        ),
      ]);
      // Each answer was cut near the cap: the server wrote a few megabytes at most, not the
      // hundreds it would go on to.
      const sent = result.server.requests.map((request) => request.endlessBytes ?? 0);
      expect(sent).toHaveLength(2);
      for (const bytes of sent) expect(bytes).toBeLessThan(64 * 1024 * 1024);
    },
  );

  test('a hung API: each attempt ends at --request-timeout, each wait is shown, the last line gives the real time and names the flags', {
    timeout: 60_000,
  }, async () => {
    const result = await rlm(
      ['What is the answer?', '--request-timeout', '500', '--max-retries', '1'],
      [fakeHang(), fakeHang()],
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = rlmLines(result.stderr);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      'rlm: step 1: the API did not answer within 500 ms; retrying in 0.5 s (attempt 2 of 2)',
    );
    expect(lines[1]).toMatch(
      /^rlm: the model call failed: the Messages API did not answer within --request-timeout \(500 ms\); gave up after 2 attempts over [\d.]+ s\. Raise --request-timeout or --max-retries, lower maxTokens, or check the network\.$/,
    );
    // The time said is the time taken: 2 x 0.5 s + 0.5 s of backoff.
    const said = Number(/over ([\d.]+) s/.exec(lines[1]!)![1]) * 1000;
    expect(said).toBeGreaterThanOrEqual(1_400);
    expect(said).toBeLessThanOrEqual(result.elapsedMs);
    expect(result.server.requests).toHaveLength(2);
  });

  test('a 429 with retry-after: the wait is said on stderr (even with --quiet), then the answer', {
    timeout: 60_000,
  }, async () => {
    const result = await rlm(
      ['What is the answer?', '--quiet'],
      [fakeError(429, { retryAfterSeconds: 1 }), answer],
    );
    expect(result, result.stderr).toMatchObject({ code: 0, stdout: '42\n' });
    expect(rlmLines(result.stderr)).toEqual([
      'rlm: step 1: the API answered 429 rate_limit_error; retrying in 1 s, as the API asked (attempt 2 of 3)',
    ]);
    expect(result.server.requests.map((request) => request.status)).toEqual([429, 200]);
  });

  test('a retry of a sub-call names it and its step', { timeout: 60_000 }, async () => {
    const result = await rlm(
      ['What is the answer?', '--quiet'],
      [
        fakeText('```repl\nprint(await llm_query("What is six times seven?"))\n```'),
        fakeError(500),
        fakeText('42'),
        answer,
      ],
    );
    expect(result, result.stderr).toMatchObject({ code: 0, stdout: '42\n' });
    expect(rlmLines(result.stderr)).toEqual([
      'rlm: llm_query in step 1: the API answered 500 api_error; retrying in 0.5 s (attempt 2 of 3)',
    ]);
  });

  test('a retry-after beyond --max-retry-wait fails at once, saying how long the API asked to wait', {
    timeout: 60_000,
  }, async () => {
    const result = await rlm(
      ['What is the answer?'],
      [fakeError(429, { retryAfterSeconds: 3600 }), answer],
    );
    expect(result.code).toBe(1);
    expect(result.scaledMs).toBeLessThan(30_000);
    expect(rlmLines(result.stderr)).toEqual([
      expect.stringMatching(
        /^rlm: the model call failed: the Messages API answered 429 rate_limit_error: .*, and asked to wait 60 min before a retry, longer than --max-retry-wait \(60,000 ms\) allows\. Try again later or raise --max-retry-wait\. \(request-id req_fake_1\)$/,
      ),
    ]);
    expect(result.server.requests).toHaveLength(1);
  });

  test("bodies that are not the API's JSON are retried; when retries run out, one line with status, content type and first bytes", {
    timeout: 60_000,
  }, async () => {
    const result = await rlm(
      ['What is the answer?', '--max-retries', '2'],
      [
        fakeText('x'.repeat(5_000), { cutAfterBytes: 100 }),
        fakeRaw('application/json', '"upstream busy"'),
        fakeRaw(
          'text/html; charset=utf-8',
          '<html><head><title>502 Bad Gateway</title></head></html>',
        ),
        answer,
      ],
    );
    expect(result.code).toBe(1);
    const lines = rlmLines(result.stderr);
    expect(lines).toHaveLength(3);
    // The model streams: a body cut mid-way is a stream that stopped mid-answer.
    expect(lines[0]).toMatch(
      /^rlm: step 1: the API stopped mid-answer \(.+ after \d+ events\); retrying in 0\.5 s \(attempt 2 of 3\)$/,
    );
    expect(lines[1]).toBe(
      'rlm: step 1: the API answered 200 with a body that is not a message (the JSON is a string, not a message); retrying in 1 s (attempt 3 of 3)',
    );
    expect(lines[2]).toMatch(
      /^rlm: the model call failed: the Messages API answered 200 \(content-type text\/html; charset=utf-8\) with a body that is not a message: content-type text\/html; charset=utf-8, not JSON; it starts "<html><head><title>502 Bad Gateway<\/title>.*"; gave up after 3 attempts over [\d.]+ s\. .*raise --max-retries\.$/,
    );
    expect(result.server.requests).toHaveLength(3);
  });

  test.each([
    [['--request-timeout', '0'], 'rlm: --request-timeout needs a positive whole number (got "0")'],
    [
      ['--max-retries', 'many'],
      'rlm: --max-retries needs a whole number of 0 or more (got "many")',
    ],
    [
      ['--max-retry-wait', '1m'],
      'rlm: --max-retry-wait needs a whole number of 0 or more (got "1m")',
    ],
  ])(
    '%j is a usage error: one line, exit 2, no model call',
    { timeout: 60_000 },
    async (flags, line) => {
      const result = await rlm(['What is the answer?', ...flags], [answer]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`${line}\n`);
      expect(result.server.requests).toHaveLength(0);
    },
  );
});

describe('responses the loop bounds', () => {
  const repl = (code: string) => `${'```'}repl\n${code}\n${'```'}`;

  test('a response cut at max_tokens inside a code block: the block does not run, stderr says so, the model is told', {
    timeout: 60_000,
  }, async () => {
    const result = await rlm(
      ['What is the answer?'],
      [
        fakeText(
          `${repl('const half = 21;\nprint("half is " + half)')}\n${'```'}repl\nconst answer = half * 2;\nprint(ans`,
          { stopReason: 'max_tokens' },
        ),
        fakeToolUse('SUBMIT', { answer: '42' }),
      ],
    );
    expect(result, result.stderr).toMatchObject({ code: 0, stdout: '42\n' });
    expect(result.stderr).toContain('half is 21');
    expect(result.stderr).toContain(
      '⚠ The response reached max_tokens inside a code block: that block was not run',
    );
    expect(result.stderr).not.toContain('SyntaxError');
    const second = JSON.stringify(result.server.requests[1]!.body);
    expect(second).toContain('unfinished block was NOT run');
    expect(second).toContain('The 1 complete block before it ran');
  });

  test('--max-code-blocks: only that many run, the rest are reported; --max-response-chars bounds what goes back', {
    timeout: 60_000,
  }, async () => {
    const blocks = Array.from({ length: 200 }, (_, index) => repl(`print("block ${index}")`)).join(
      '\n',
    );
    const result = await rlm(
      ['What is the answer?', '--max-code-blocks', '3', '--max-response-chars', '1000'],
      [fakeText(blocks), fakeToolUse('SUBMIT', { answer: 'done' })],
    );
    expect(result).toMatchObject({ code: 0, stdout: 'done\n' });
    expect(result.stderr).toContain('block 2');
    expect(result.stderr).not.toContain('block 3\n');
    expect(result.stderr).toContain('⚠ The response had 200 code blocks: only the first 3 ran.');
    const second = JSON.stringify(result.server.requests[1]!.body);
    expect(second).toContain('the other 197 were NOT run');
    expect(second).toContain(`the response was ${blocks.length} characters`);
    expect(second.length).toBeLessThan(8_000);
  });
});
