import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type FakeMessagesServer, type FakeReply, fakeText } from '@rlm/anthropic/testing';
import { describe, expect, test } from 'vitest';
import { formatDollars } from '../output/format-run-totals.js';
import { type BuiltRlmResult, runBuiltRlm } from './start-built-rlm.js';
import { useBuiltRlmWorkspace } from './use-built-rlm-workspace.js';

/** Cost end to end: the built bin against the fake Messages API and its emulated prompt cache. */

const { root, serve } = useBuiltRlmWorkspace('rlm-cli-cost-');
let server: FakeMessagesServer | undefined;

/** Starts the fake server with `replies` and runs the bin against it, without a store. */
async function runRlm(
  args: readonly string[],
  replies: readonly FakeReply[],
): Promise<BuiltRlmResult> {
  server = await serve(replies);
  return runBuiltRlm([...args, '--no-store'], { cwd: root, baseURL: server.url });
}

interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  modelCalls: number;
  costUsd?: number;
  unpricedModelCalls?: number;
}

/** Dollars of `usage` at prices per million tokens. */
function priced(usage: Usage, input: number, output: number, read: number, write: number) {
  return (
    (usage.inputTokens * input +
      usage.outputTokens * output +
      usage.cacheReadTokens * read +
      usage.cacheWriteTokens * write) /
    1_000_000
  );
}

const countStep = fakeText(
  'Counting first.\n```repl\nconst count = context.split(" ").length\nprint(count)\n```',
);

describe('rlm cost (built bin)', () => {
  test('the default model is priced: step lines, the closing totals line, cost in --json', async () => {
    // Long enough for the prompt cache's 1,024-token minimum from the second request on.
    const context = path.join(root, 'words.txt');
    await writeFile(context, 'word '.repeat(8_000));
    const result = await runRlm(
      ['How many words?', '-c', context, '--json'],
      [
        fakeText('Reading the start.\n```repl\nprint(context.slice(0, 6000))\n```'),
        countStep,
        fakeText('FINAL(There are 8000 words.)'),
      ],
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    const usage: Usage = report.usage;
    expect(usage.modelCalls).toBe(3);
    // The second request read what the first wrote to the prompt cache.
    expect(usage.cacheReadTokens).toBeGreaterThan(1_000);
    expect(usage.cacheWriteTokens).toBeGreaterThan(0);
    // claude-sonnet-5-5: $2 input, $10 output, $0.2 cache read, $2.5 cache write per million.
    expect(usage.costUsd).toBeCloseTo(priced(usage, 2, 10, 0.2, 2.5), 10);
    const tokens =
      usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    const closing = result.stderr.split('\n').find((line) => line.startsWith('✓ answered'));
    expect(closing).toBe(
      `✓ answered after 3 steps · ${tokens.toLocaleString('en-US')} tokens (${usage.cacheReadTokens.toLocaleString('en-US')} cache reads) · ${formatDollars(usage.costUsd!)}`,
    );
    const stepLines = result.stderr.split('\n').filter((line) => line.startsWith('  · '));
    expect(stepLines).toHaveLength(2);
    for (const line of stepLines) {
      expect(line).toMatch(
        /^ {2}· [\d,]+ tokens(?: \([\d,]+ cache reads\))? · \$0\.\d{4} · \d+\.\d s · run so far \$0\.\d{4}$/,
      );
    }
    expect(report.callUsage).toEqual([{ callId: 'call-1', kind: 'root', usage }]);
  });

  test('--json gives the usage of each call: the root and its llm_query', async () => {
    const result = await runRlm(
      ['Ask', '--json', '--quiet'],
      [
        fakeText('```repl\nconst reply = await llm_query("Say hello")\nprint(reply)\n```'),
        fakeText('hello'),
        fakeText('FINAL(done)'),
      ],
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.callUsage).toHaveLength(2);
    const [rootCall, query] = report.callUsage;
    expect(rootCall).toMatchObject({ callId: 'call-1', kind: 'root', usage: { modelCalls: 2 } });
    expect(query).toMatchObject({
      kind: 'llm_query',
      parentCallId: 'call-1',
      usage: { modelCalls: 1 },
    });
    for (const field of ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens']) {
      expect(rootCall.usage[field] + query.usage[field]).toBe(report.usage[field]);
    }
    expect(rootCall.usage.costUsd + query.usage.costUsd).toBeCloseTo(report.usage.costUsd, 12);
  });

  test('--price prices a model; without one the cost is unknown, never guessed', async () => {
    const model = ['-m', 'anthropic:claude-test-1'];
    const script = () => [countStep, fakeText('FINAL(3)')];
    const withPrice = await runRlm(
      ['Count', ...model, '--price', 'claude-test-1=1,4,0.1,1.25', '--json', '--quiet'],
      script(),
    );
    expect(withPrice.code).toBe(0);
    const usage: Usage = JSON.parse(withPrice.stdout).usage;
    expect(usage.costUsd).toBeCloseTo(priced(usage, 1, 4, 0.1, 1.25), 10);

    const unpriced = await runRlm(['Count', ...model, '--json'], script());
    expect(unpriced.code).toBe(0);
    const report = JSON.parse(unpriced.stdout);
    expect(report.usage.costUsd).toBeUndefined();
    expect(report.usage.unpricedModelCalls).toBe(2);
    expect(unpriced.stderr).toMatch(
      /\n✓ answered after 2 steps · [\d,]+ tokens.* · cost unknown\n/,
    );
  });

  test('--max-cost with a model that has no price: exit 2, one line naming --price, no model call', async () => {
    const result = await runRlm(
      ['Count', '-m', 'anthropic:claude-test-1', '--max-cost', '1'],
      [fakeText('FINAL(never)')],
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^rlm: [^\n]+\n$/);
    expect(result.stderr).toContain('add --price claude-test-1=<input>,<output>');
    expect(server!.requests).toHaveLength(0);
  });

  test.each([['0'], ['-1'], ['ten'], ['1,5']])(
    '--max-cost %s: exit 2, one line, no model call',
    async (value) => {
      const result = await runRlm(['Count', `--max-cost=${value}`], [fakeText('FINAL(never)')]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `rlm: --max-cost needs a positive number of US dollars such as 0.50 (got ${JSON.stringify(value)})\n`,
      );
      expect(server!.requests).toHaveLength(0);
    },
  );

  test('a spent --max-cost ends the run with the partial answer: exit 1, raise --max-cost', async () => {
    const result = await runRlm(
      [
        'Count',
        '-m',
        'anthropic:claude-test-1',
        '--price',
        'claude-test-1=1000,1000',
        '--max-cost',
        '0.01',
        '--quiet',
        '--json',
      ],
      [fakeText('Probably 3 words.\n```repl\nprint(context)\n```'), fakeText('FINAL(never asked)')],
    );
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      error: { name: 'BudgetExhaustedError' },
      partialAnswer: expect.stringContaining('Probably 3 words.'),
      usage: { modelCalls: 1 },
      callUsage: [{ callId: 'call-1', kind: 'root', usage: { modelCalls: 1 } }],
    });
    expect(report.usage.costUsd).toBeGreaterThanOrEqual(0.01);
    const [first, label, partial] = result.stderr.trimEnd().split('\n');
    expect(first).toMatch(
      /^rlm: the run spent its cost budget before answering \(.+\); raise --max-cost$/,
    );
    expect(label).toBe('rlm: partial answer (not final):');
    expect(partial).toBe('Probably 3 words.');
    expect(server!.requests).toHaveLength(1);
  });
});
