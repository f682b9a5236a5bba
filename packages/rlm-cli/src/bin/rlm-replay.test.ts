import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fakeText } from '@rlm/anthropic/testing';
import { traceFromJsonLines } from '@rlm/trace';
import { describe, expect, test } from 'vitest';
import { writeFileIn } from '../test-support/write-file-in.js';
import { rlmLines, runBuiltRlm } from './start-built-rlm.js';
import { useBuiltRlmWorkspace } from './use-built-rlm-workspace.js';

/** `--model replay:<trace>` through the built bin: the shipped example, stored runs, divergence. */

const { root, serve } = useBuiltRlmWorkspace('rlm-cli-replay-');
const repositoryRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const exampleContext = path.join(repositoryRoot, 'examples/incidents');
const exampleRun = path.join(repositoryRoot, 'examples/incidents-run.jsonl');
const exampleQuestion =
  'Which incidents were caused by an expired certificate, and how long did each last?';
const rerecord =
  'the shipped example no longer replays: what the model is sent changed; record it again with pnpm --filter @rlm/cli record-example';

describe('rlm --model replay:<trace>', () => {
  test("the shipped example replays without a key or network, giving the recorded run's answer", async () => {
    const recorded = traceFromJsonLines(await readFile(exampleRun, 'utf8'));
    expect(recorded.status).toBe('answered');
    expect(recorded.query).toBe(exampleQuestion);
    const result = await runBuiltRlm(
      [
        exampleQuestion,
        '--context-dir',
        exampleContext,
        '--model',
        `replay:${exampleRun}`,
        '--no-store',
      ],
      { cwd: root, env: { NO_COLOR: '1' } },
    );
    expect(result.stderr, rerecord).not.toMatch(/replayed run left/);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${recorded.final!.answerExcerpt}\n`);
    // It ran the recorded code in the sandbox: the outputs are shown as the run goes.
    expect(result.stderr).toContain(`replay:${exampleRun}`);
    expect(result.stderr).toContain('→ 2024-03-payments-certificate.md (887 chars)');
    expect(result.stderr).toMatch(/✓ answered after 3 steps · [\d,]+ tokens .*· \$0\.0000\n/);
  }, 60_000);

  test('the shipped example renders as a trace page', async () => {
    const out = path.join(root, 'example.html');
    const result = await runBuiltRlm(['trace', exampleRun, '-o', out], { cwd: root });
    expect(result.code).toBe(0);
    expect(rlmLines(result.stderr)).toEqual([expect.stringMatching(/^rlm: trace written to /)]);
    expect(await readFile(out, 'utf8')).toContain(exampleQuestion);
  });

  test('a run that goes another way fails on its first difference, saying where; exit 1', async () => {
    const changed = path.join(root, 'incidents-changed');
    await cp(exampleContext, changed, { recursive: true });
    const report = path.join(changed, '2024-03-payments-certificate.md');
    await writeFile(report, (await readFile(report, 'utf8')).replace('09:59', '10:00'));
    const result = await runBuiltRlm(
      [exampleQuestion, '-d', changed, '--model', `replay:${exampleRun}`, '--no-store', '-q'],
      { cwd: root },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(rlmLines(result.stderr)).toEqual([
      expect.stringMatching(
        /^rlm: the replayed run left .*incidents-run\.jsonl at model request \d: it differs from the closest recorded request, llm_query_batched in step 2 of the root call, in message 1 \(user\) at character \d+: recorded ".*From 09:12 to 09:59 UTC.*", asked ".*From 09:12 to 10:00 UTC.*"; the code, context, settings or version changed since the recording$/,
      ),
    ]);
  }, 60_000);

  test('a stored run replays by its id, asking no API', async () => {
    const server = await serve([
      fakeText('```repl\nconst words = context.split(" ").length;\nprint(words)\n```'),
      fakeText('FINAL(3 words)'),
    ]);
    const context = await writeFileIn(root, 'stored/words.txt', 'one two three');
    const cwd = path.dirname(context);
    const recorded = await runBuiltRlm(['How many words?', '-c', context], {
      cwd,
      baseURL: server.url,
    });
    expect(recorded.code).toBe(0);
    const runId = /trace kept as run (\S+)/.exec(recorded.stderr)![1]!;
    const requests = server.requests.length;
    // No key and no base URL: only the recording answers.
    const replayed = await runBuiltRlm(
      ['How many words?', '-c', context, '-m', `replay:${runId}`],
      {
        cwd,
      },
    );
    expect(replayed.stderr).not.toMatch(/replayed run left/);
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toBe('3 words\n');
    expect(server.requests.length).toBe(requests);
  }, 60_000);

  test('a trace that cannot be replayed: one line, exit 2, nothing read', async () => {
    const missing = path.join(root, 'nope.jsonl');
    const notTrace = await writeFileIn(root, 'not-a-trace.jsonl', '{"kind":"step"}\n');
    const cases: [string[], RegExp][] = [
      [
        ['q', '-m', `replay:${missing}`],
        /^rlm: replay:.*nope\.jsonl: no such file; give the JSON lines of a run/,
      ],
      [
        ['q', '-m', `replay:${notTrace}`],
        /^rlm: replay:.*not-a-trace\.jsonl: line 1 of the JSON lines is not the run line of a rlm-trace\/1 trace; write them with rlm trace --jsonl/,
      ],
      [
        ['q', '-m', 'replay:20240101-000000-abcdef', '--no-store'],
        /^rlm: replay:20240101-000000-abcdef is a stored run, and --no-store keeps no store to read it from/,
      ],
      [
        ['q', '-m', 'replay:20240101-000000-abcdef', '--store', path.join(root, 'none.sqlite')],
        /^rlm: no store at .*none\.sqlite/,
      ],
    ];
    for (const [args, line] of cases) {
      const result = await runBuiltRlm(args, { cwd: root });
      expect(result.code).toBe(2);
      expect(rlmLines(result.stderr)).toEqual([expect.stringMatching(line)]);
    }
  }, 60_000);
});
