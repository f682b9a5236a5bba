import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type FakeMessagesServer,
  fakeError,
  fakeText,
  startFakeMessagesServer,
} from '@rlm/anthropic/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCliPiped } from '../../test-support/run-cli-piped.js';
import { useTemporaryDirectory } from '../../test-support/use-temporary-directory.js';

const { root } = useTemporaryDirectory('rlm-cli-trace-');
let server: FakeMessagesServer;

beforeAll(async () => {
  server = await startFakeMessagesServer();
});

afterAll(async () => {
  await server.close();
});

function rlm(argv: string[]) {
  return runCliPiped(argv, { baseURL: server.url });
}

function embeddedTrace(html: string) {
  const data = /<script type="application\/json" id="rlm-trace-data">([\s\S]*?)<\/script>/.exec(
    html,
  );
  return JSON.parse(data![1]!);
}

describe('traces through the CLI', () => {
  test('a query keeps its trace in the store and writes --trace; failed runs too', async () => {
    const store = path.join(root, 'store.sqlite');
    const html = path.join(root, 'out', 'first.html');
    server.enqueue(
      fakeText('```repl\nconst reply = await llm_query("name a colour")\nprint(reply)\n```'),
      fakeText('teal'),
      fakeText('FINAL_VAR(reply)'),
    );
    const first = await rlm(['Pick a colour', '--store', store, '--trace', html]);
    expect(first).toMatchObject({ exitCode: 0, stdout: 'teal\n' });
    expect(first.stderr).toMatch(/^rlm: trace kept as run \d{8}-\d{6}-[0-9a-f]{6} /m);
    expect(first.stderr).toContain(`rlm: trace written to ${html}`);
    const trace = embeddedTrace(await readFile(html, 'utf8'));
    expect(trace).toMatchObject({ query: 'Pick a colour', status: 'answered', steps: 2 });
    expect(trace.usage.costUsd).toBeGreaterThan(0);
    const rootCall = trace.calls[0];
    expect(rootCall.callId).toBe(trace.rootCallId);
    expect(rootCall.steps[0].hostCalls[0]).toMatchObject({
      name: 'llm_query',
      argumentsExcerpt: 'name a colour',
      resultExcerpt: 'teal',
      ok: true,
    });
    expect(rootCall.steps[0].blocks[0].output).toContain('teal');

    const failedHtml = path.join(root, 'failed.html');
    server.enqueue(fakeError(400));
    const failed = await rlm(['Fail please', '--store', store, '--trace', failedHtml, '-q']);
    expect(failed.exitCode).toBe(1);
    // --quiet: the failure's own line, and no line about the trace.
    expect(failed.stderr).not.toMatch(/trace (kept|written)/);
    expect(embeddedTrace(await readFile(failedHtml, 'utf8'))).toMatchObject({
      query: 'Fail please',
      status: 'failed',
      error: { message: expect.any(String) },
    });

    const runs = await rlm(['runs', '--store', store]);
    expect(runs.exitCode).toBe(0);
    const lines = runs.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RUN +STARTED \(UTC\) +STATUS +STEPS +TOKENS +COST +TIME +QUERY$/);
    expect(lines[1]).toMatch(/ failed .*Fail please$/);
    // The default model has a built-in price: the run's cost is known.
    expect(lines[2]).toMatch(/ answered +2 +[\d,]+ +\$0\.\d{4} .*Pick a colour$/);
    const json = JSON.parse((await rlm(['runs', '--json', '--store', store])).stdout);
    expect(json.map((run: { query: string }) => run.query)).toEqual([
      'Fail please',
      'Pick a colour',
    ]);
    expect(json[1].usage.modelCalls).toBe(3);

    const written = path.join(root, 'again.html');
    const byId = await rlm(['trace', json[1].runId, '--store', store, '-o', written]);
    expect(byId).toMatchObject({ exitCode: 0, stdout: '' });
    expect(embeddedTrace(await readFile(written, 'utf8')).runId).toBe(json[1].runId);

    const jsonl = await rlm(['trace', '--last', '--jsonl', '--store', store]);
    const records = jsonl.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records[0]).toMatchObject({ kind: 'run', runId: json[0].runId, status: 'failed' });
    expect(records[1]).toMatchObject({ kind: 'call', depth: 0, query: 'Fail please' });
  });

  test('--no-store still writes --trace from memory', async () => {
    const html = path.join(root, 'memory.html');
    server.enqueue(fakeText('FINAL(done)'));
    const result = await rlm(['Quick', '--no-store', '--trace', html]);
    expect(result).toMatchObject({ exitCode: 0, stdout: 'done\n' });
    expect(result.stderr).not.toContain('trace kept');
    expect(embeddedTrace(await readFile(html, 'utf8'))).toMatchObject({ status: 'answered' });
    server.enqueue(fakeText('FINAL(done)'));
    const quiet = await rlm(['Quick', '--no-store', '--trace', html, '-q']);
    expect(quiet).toMatchObject({ exitCode: 0, stdout: 'done\n', stderr: '' });
  });

  test('bad input gets one line and exit 2, and creates no store', async () => {
    const missing = path.join(root, 'missing.sqlite');
    const runs = await rlm(['runs', '--store', missing]);
    expect(runs.exitCode).toBe(2);
    expect(runs.stderr).toMatch(/^rlm: no store at .*missing\.sqlite: .*run a query first.*\n$/);
    await expect(access(missing)).rejects.toThrow();

    const store = path.join(root, 'store.sqlite');
    const unknown = await rlm(['trace', 'no-such-run', '--store', store]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/^rlm: no run "no-such-run" is stored; rlm runs lists/);
    expect((await rlm(['trace', 'a', 'b', '--store', store])).exitCode).toBe(2);
    expect((await rlm(['trace', 'a', '--last', '--store', store])).exitCode).toBe(2);
    expect((await rlm(['runs', '--limit', 'x', '--store', store])).exitCode).toBe(2);
    const flag = await rlm(['runs', '--bogus']);
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr.split('\n')).toHaveLength(2);
    expect((await rlm(['trace', '--help'])).stdout).toContain(
      'rlm trace [--last | <run-id> | <run.jsonl>]',
    );
  });
});
