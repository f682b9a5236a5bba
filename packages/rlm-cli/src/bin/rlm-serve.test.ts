import path from 'node:path';
import {
  type FakeChatCompletionsServer,
  fakeChatHang,
  fakeChatText,
  startFakeChatCompletionsServer,
} from '@rlm/openai/testing';
import OpenAI from 'openai';
import { afterEach, describe, expect, test } from 'vitest';
import { type BuiltRlmProcess, runBuiltRlm, startBuiltRlm } from './start-built-rlm.js';
import { useBuiltRlmWorkspace } from './use-built-rlm-workspace.js';

/**
 * `rlm serve` as a real process, the official `openai` SDK as its client, and the strict fake
 * Chat Completions API as the model behind it.
 */

const modelKey = 'sk-proj-serve-test-key-0123456789';
const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const { root, makeTree } = useBuiltRlmWorkspace('rlm-cli-serve-');

const running: BuiltRlmProcess[] = [];
afterEach(async () => {
  for (const process of running.splice(0)) {
    process.kill('SIGKILL');
    await process.done.catch(() => {});
  }
});

/** Starts `rlm serve` on a free port with the fake model; resolves once it listens. */
async function serve(
  model: FakeChatCompletionsServer,
  args: readonly string[],
): Promise<{ process: BuiltRlmProcess; baseURL: string }> {
  let stderr = '';
  const process = startBuiltRlm(
    ['serve', '--port', '0', '-m', 'openai:gpt-4.1', '--base-url', model.url, ...args],
    {
      cwd: root,
      env: { OPENAI_API_KEY: modelKey },
      onStderr: (text) => {
        stderr = text;
      },
    },
  );
  running.push(process);
  await process.stderrContains('rlm: serving');
  const url = /on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(stderr)?.[1];
  if (url === undefined) throw new Error(`rlm serve printed no URL: ${stderr}`);
  return { process, baseURL: `${url}/v1` };
}

describe('rlm serve', () => {
  test('the openai SDK asks, streamed and not; the runs are logged, kept in the store and listed by rlm runs', async () => {
    await using model = await startFakeChatCompletionsServer({
      apiKey: modelKey,
      replies: [
        fakeChatText(repl('const lines = context.split("\\n").length; print(lines)')),
        fakeChatText('FINAL(the document has 3 lines)'),
        fakeChatText('FINAL(streamed answer)'),
      ],
    });
    const store = path.join(root, 'served.sqlite');
    const served = await serve(model, ['--store', store]);
    const client = new OpenAI({ baseURL: served.baseURL, apiKey: 'none', maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'rlm',
      messages: [{ role: 'user', content: 'How many lines?' }],
      // @ts-expect-error: the rlm extension
      context: 'one\ntwo\nthree',
    });
    expect(completion.choices[0]!.message.content).toBe('the document has 3 lines');
    expect(completion.model).toBe('rlm:openai:gpt-4.1');
    const stream = await client.chat.completions.create({
      model: 'rlm:openai:gpt-4.1',
      messages: [{ role: 'user', content: 'Stream it.' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('streamed answer');
    expect(usage?.total_tokens).toBeGreaterThan(0);
    // gpt-4.1 is priced built in: the cost comes back as an extension of usage.
    expect((usage as unknown as { cost_usd: number }).cost_usd).toBeGreaterThan(0);
    served.process.kill('SIGTERM');
    const result = await served.process.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('rlm: stopped');
    const logs = result.stderr.split('\n').filter((line) => line.startsWith('time='));
    expect(logs).toHaveLength(2);
    expect(logs[0]).toMatch(
      new RegExp(
        `id=${completion.id} protocol=openai model=rlm:openai:gpt-4.1 stream=false status=200 outcome=answered tokens=\\d+ model_calls=2 cost_usd=0\\.\\d+ ms=\\d+ run=\\d{8}-\\d{6}-\\w+`,
      ),
    );
    expect(logs[1]).toContain('stream=true status=200 outcome=answered');
    const runs = await runBuiltRlm(['runs', '--json', '--store', store], { cwd: root });
    expect(runs.code).toBe(0);
    expect(
      (JSON.parse(runs.stdout) as { query: string; status: string }[]).map((run) => [
        run.query,
        run.status,
      ]),
    ).toEqual([
      ['Stream it.', 'answered'],
      ['How many lines?', 'answered'],
    ]);
  });

  test('a client that disconnects mid-run: the run is cancelled and the model API sees no further request', async () => {
    await using model = await startFakeChatCompletionsServer({
      apiKey: modelKey,
      replies: [fakeChatText(repl('print("step one")')), fakeChatHang()],
    });
    const served = await serve(model, ['--no-store']);
    const controller = new AbortController();
    const request = new OpenAI({
      baseURL: served.baseURL,
      apiKey: 'none',
      maxRetries: 0,
    }).chat.completions
      .create(
        { model: 'rlm', messages: [{ role: 'user', content: 'Take your time.' }] },
        { signal: controller.signal },
      )
      .catch((error: unknown) => error);
    while (model.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    expect(await request).toBeInstanceOf(OpenAI.APIUserAbortError);
    await served.process.stderrContains('outcome=cancelled');
    // The hanging model request was cut (no status), and nothing followed it.
    expect(model.requests.map((recorded) => recorded.status)).toEqual([200, undefined]);
    served.process.kill('SIGTERM');
    expect((await served.process.done).code).toBe(0);
    expect(model.requests).toHaveLength(2);
  });

  test('SIGTERM: a running request finishes; past --shutdown-grace the next is cut with 503', async () => {
    // The model answers only once the server has begun to shut down.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    await using model = await startFakeChatCompletionsServer({
      apiKey: modelKey,
      handler: async () => {
        await released;
        return fakeChatText('FINAL(finished while shutting down)');
      },
    });
    const served = await serve(model, ['--no-store']);
    const client = new OpenAI({ baseURL: served.baseURL, apiKey: 'none', maxRetries: 0 });
    const request = client.chat.completions.create({
      model: 'rlm',
      messages: [{ role: 'user', content: 'Finish?' }],
    });
    while (model.requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    served.process.kill('SIGTERM');
    await served.process.stderrContains('rlm: shutting down');
    release();
    expect((await request).choices[0]!.message.content).toBe('finished while shutting down');
    const result = await served.process.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'rlm: shutting down: 1 running request may finish within 30.0 s',
    );

    await using hanging = await startFakeChatCompletionsServer({
      apiKey: modelKey,
      replies: [fakeChatHang()],
    });
    const cut = await serve(hanging, ['--no-store', '--shutdown-grace', '200ms']);
    const stream = await new OpenAI({
      baseURL: cut.baseURL,
      apiKey: 'none',
      maxRetries: 0,
    }).chat.completions.create({
      model: 'rlm',
      messages: [{ role: 'user', content: 'Forever?' }],
      stream: true,
    });
    const consumed = (async () => {
      for await (const _chunk of stream) void _chunk;
    })().catch((error: unknown) => error);
    while (hanging.requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    cut.process.kill('SIGTERM');
    expect(await consumed).toMatchObject({ code: 'shutting_down' });
    const cutResult = await cut.process.done;
    expect(cutResult.code).toBe(0);
    expect(cutResult.stderr).toMatch(/status=503 outcome=cut/);
  });

  test('context_paths are read under --context-root; a path outside it is a 400 and nothing is read', async () => {
    const docs = await makeTree('served-root', {
      'notes/a.txt': 'alpha\n',
      'notes/b.txt': 'beta\n',
    });
    await using model = await startFakeChatCompletionsServer({
      apiKey: modelKey,
      replies: [fakeChatText(repl('print(JSON.stringify(context))')), fakeChatText('FINAL(read)')],
    });
    const served = await serve(model, ['--no-store', '--context-root', docs]);
    const client = new OpenAI({ baseURL: served.baseURL, apiKey: 'none', maxRetries: 0 });
    const outside = await client.chat.completions
      .create({
        model: 'rlm',
        messages: [{ role: 'user', content: 'Read it.' }],
        // @ts-expect-error: the rlm extension
        context_paths: ['../../etc/passwd'],
      })
      .catch((error: unknown) => error);
    expect(outside).toMatchObject({ status: 400, code: 'context_path_outside_root' });
    const completion = await client.chat.completions.create({
      model: 'rlm',
      messages: [{ role: 'user', content: 'What do the notes say?' }],
      // @ts-expect-error: the rlm extension
      context_paths: ['notes'],
    });
    expect(completion.choices[0]!.message.content).toBe('read');
    // The directory is an array of its files, as with rlm --context-dir.
    const output = (model.requests[1]!.body as { messages: { content: string }[] }).messages.at(
      -1,
    )!;
    expect(output.content).toContain('REPL output:\n["alpha\\n","beta\\n"]');
  });

  test('bad usage: one line, exit 2, nothing listens', async () => {
    const openHost = await runBuiltRlm(['serve', '--host', '0.0.0.0', '--no-store'], {
      cwd: root,
      env: { ANTHROPIC_API_KEY: 'sk-ant-x' },
    });
    expect(openHost.code).toBe(2);
    expect(openHost.stderr).toBe(
      'rlm: --host 0.0.0.0 lets other machines in, so requests need a bearer token: set RLM_SERVER_TOKEN=<a long random string> (or pass --token), or listen on 127.0.0.1\n',
    );
    const query = await runBuiltRlm(['serve', 'what?'], { cwd: root });
    expect(query.code).toBe(2);
    expect(query.stderr).toContain('rlm serve takes no "what?"');
    const context = await runBuiltRlm(['serve', '--context', 'x.txt'], { cwd: root });
    expect(context.stderr).toBe(
      'rlm: rlm serve takes no --context: requests bring their context; name files with --context-root <dir>\n',
    );
    const missingRoot = await runBuiltRlm(
      [
        'serve',
        '--no-store',
        '-m',
        'openai:m',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--context-root',
        'nope',
      ],
      { cwd: root },
    );
    expect(missingRoot.code).toBe(2);
    expect(missingRoot.stderr).toMatch(
      /^rlm: the context root nope is not a directory \(ENOENT.*\); name an existing directory\n$/,
    );
    const key = await runBuiltRlm(['serve', '--no-store', '-m', 'anthropic:claude-sonnet-5-5'], {
      cwd: root,
    });
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('ANTHROPIC_API_KEY is not set');
  });
});
