import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { fakeChatHang, fakeChatText, startFakeChatCompletionsServer } from '@rlm/openai/testing';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, test } from 'vitest';
import { startBuiltRlm } from './start-built-rlm.js';
import { useBuiltRlmWorkspace } from './use-built-rlm-workspace.js';

/**
 * `rlm mcp` as MCP clients start it, `{"command": "npx", "args": ["rlm", "mcp", ...]}`, driven by
 * the official MCP SDK client over stdio, with the strict fake Chat Completions API as the model.
 */

const modelKey = 'sk-proj-mcp-test-key-0123456789';
const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const { makeTree } = useBuiltRlmWorkspace('rlm-cli-mcp-');

/** The package's `bin` entry, which loads the built command (what an install links). */
const packageBin = fileURLToPath(new URL('../../bin/rlm.js', import.meta.url));

/**
 * A project where `rlm` is installed (its bin in node_modules/.bin, as `npm i @rlm/cli` leaves
 * it), holding a long log whose errors lie past any preview of it.
 */
async function project(name: string): Promise<string> {
  const directory = await makeTree(name, {
    // The errors lie between the head and the tail of the context the prompt previews.
    'logs/app.log': `${'INFO ok\n'.repeat(1500)}ERROR disk full\nINFO ok\nERROR timeout\n${'INFO ok\n'.repeat(1500)}`,
  });
  await mkdir(path.join(directory, 'node_modules', '.bin'), { recursive: true });
  await symlink(packageBin, path.join(directory, 'node_modules', '.bin', 'rlm'));
  return directory;
}

/** An MCP client of `npx rlm mcp <args>` started in `cwd`, its stderr collected. */
async function connect(cwd: string, args: readonly string[]) {
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['rlm', 'mcp', ...args],
    cwd,
    env: {
      ...getDefaultEnvironment(),
      OPENAI_API_KEY: modelKey,
      // npx runs the installed bin; nothing is fetched.
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'rlm-cli-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr, progress: recordProgress(transport) };
}

/**
 * The messages of every progress notification the server sent, in order, as the transport
 * delivers them. The SDK's client hands a notification to `onprogress` a microtask late, after
 * a response that came in the same read (on a busy machine, the last reports come with the
 * result): `onprogress` then misses them.
 */
function recordProgress(transport: Transport): string[] {
  const messages: string[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'notifications/progress') {
      messages.push(String(message.params?.message));
    }
    deliver?.(message, extra);
  };
  return messages;
}

describe('rlm mcp over stdio', () => {
  test('lists rlm_query; a call with a path reports progress and returns the answer and its cost; the run is a resource', async () => {
    const cwd = await project('answers');
    await using model = await startFakeChatCompletionsServer({
      apiKey: modelKey,
      replies: [
        fakeChatText(
          repl(
            'const errors = context.split("\\n").filter((line) => line.startsWith("ERROR")); print(errors.join("; "))',
          ),
        ),
        fakeChatText('FINAL(two errors: disk full, timeout)'),
      ],
    });
    const { client, stderr, progress } = await connect(cwd, [
      '-m',
      'openai:gpt-4.1',
      '--base-url',
      model.url,
      '--store',
      path.join(cwd, 'mcp.sqlite'),
    ]);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['rlm_query']);
      const result = await client.callTool(
        {
          name: 'rlm_query',
          arguments: { question: 'Which errors are in the log?', paths: ['logs/app.log'] },
        },
        undefined,
        // A handler makes the client ask for progress; `progress` records what comes.
        { onprogress: () => {}, resetTimeoutOnProgress: true },
      );
      expect(result.isError).toBeFalsy();
      const content = result.content as { text: string }[];
      expect(content[0]!.text).toBe('two errors: disk full, timeout');
      // gpt-4.1 is priced built in.
      expect(content[1]!.text).toMatch(/^\$0\.\d{4} · 2 steps · \d+ tokens · 2 model calls/);
      expect(progress).toEqual(
        expect.arrayContaining(['run started', 'step 1', 'step 2', 'answered']),
      );
      // The log went into the sandbox; the model saw what the code printed, not the file.
      expect(JSON.stringify(model.requests[0]!.body)).not.toContain('disk full');
      const runId = (result.structuredContent as { run_id: string }).run_id;
      const trace = await client.readResource({ uri: `rlm://runs/${runId}` });
      expect((trace.contents[0] as { text: string }).text.split('\n')[0]).toContain(
        '"query":"Which errors are in the log?"',
      );
      expect(stderr()).toMatch(/protocol=mcp model=rlm:openai:gpt-4.1 status=200 outcome=answered/);
    } finally {
      await client.close();
    }
  });

  test('a path outside the root is a tool error; a cancelled call stops the run and the model API sees no more', async () => {
    const cwd = await project('cancel');
    await using model = await startFakeChatCompletionsServer({
      apiKey: modelKey,
      replies: [fakeChatText(repl('print("first")')), fakeChatHang()],
    });
    const { client, transport, stderr } = await connect(cwd, [
      '-m',
      'openai:gpt-4.1',
      '--base-url',
      model.url,
      '--no-store',
    ]);
    try {
      const outside = await client.callTool({
        name: 'rlm_query',
        arguments: { question: 'Read it', paths: ['../../../etc/passwd'] },
      });
      expect(outside.isError).toBe(true);
      expect((outside.content as { text: string }[])[0]!.text).toContain(
        'is outside the context root',
      );
      const controller = new AbortController();
      const call = client
        .callTool(
          { name: 'rlm_query', arguments: { question: 'Slowly?', text: 'some text' } },
          undefined,
          {
            signal: controller.signal,
          },
        )
        .catch((error: unknown) => error);
      while (model.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      controller.abort();
      expect(await call).toBeInstanceOf(Error);
      while (!stderr().includes('outcome=cancelled')) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(model.requests.map((request) => request.status)).toEqual([200, undefined]);
      const pid = transport.pid;
      await client.close();
      // Closing stdin ends the server.
      while (pid !== null && isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(model.requests).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('rlm mcp --http', () => {
  test('serves rlm_query over streamable HTTP at /mcp, behind the bearer token', async () => {
    const cwd = await project('http');
    await using model = await startFakeChatCompletionsServer({
      apiKey: modelKey,
      replies: [fakeChatText('FINAL(over http)')],
    });
    let stderr = '';
    const server = startBuiltRlm(
      [
        'mcp',
        '--http',
        '--port',
        '0',
        '-m',
        'openai:gpt-4.1',
        '--base-url',
        model.url,
        '--no-store',
      ],
      {
        cwd,
        env: { OPENAI_API_KEY: modelKey, RLM_SERVER_TOKEN: 'http-token' },
        onStderr: (text) => {
          stderr = text;
        },
      },
    );
    try {
      await server.stderrContains('rlm: serving');
      const url = /on (http:\/\/127\.0\.0\.1:\d+)\/mcp \(MCP\)/.exec(stderr)?.[1];
      expect(url).toBeDefined();
      // MCP only: no OpenAI routes.
      const models = await fetch(`${url}/v1/models`, {
        headers: { authorization: 'Bearer http-token' },
      });
      expect(models.status).toBe(404);
      expect((await fetch(`${url}/mcp`, { method: 'POST' })).status).toBe(401);
      const client = new Client({ name: 'rlm-cli-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { authorization: 'Bearer http-token' } },
        }),
      );
      const result = await client.callTool({
        name: 'rlm_query',
        arguments: { question: 'Over HTTP?' },
      });
      expect((result.content as { text: string }[])[0]!.text).toBe('over http');
      await client.close();
      server.kill('SIGTERM');
      expect((await server.done).code).toBe(0);
    } finally {
      server.kill('SIGKILL');
    }
  });
});
