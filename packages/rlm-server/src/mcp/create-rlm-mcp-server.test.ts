import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { createMemoryArtifactStore } from '@rlm/artifacts';
import {
  createTraceRecorder,
  listRuns,
  loadTrace,
  saveTrace,
  TraceNotFoundError,
  traceToJsonLines,
} from '@rlm/trace';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunCatalog, RunRecorder } from '../rlm-service.js';
import { scriptedModelId, serveScripted } from '../test-support/serve-scripted.js';
import { rlmQueryToolName } from './create-rlm-mcp-server.js';

/** The MCP server through the official SDK client, over streamable HTTP at /mcp. */

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const token = 'mcp-test-token';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'rlm-server-mcp-'));
  await mkdir(path.join(root, 'logs'));
  // The errors lie between the head and the tail of the context the prompt previews.
  await writeFile(
    path.join(root, 'logs', 'app.log'),
    `${'ok\n'.repeat(2000)}ERROR disk full\nok\nERROR timeout\n${'ok\n'.repeat(2000)}`,
  );
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A run catalog and recorder over an in-memory store, as the CLI keeps them in SQLite. */
function memoryRuns(): { runs: RunCatalog; recordRun: () => RunRecorder } {
  const store = createMemoryArtifactStore();
  return {
    runs: {
      list: (limit) => listRuns(store, { limit }),
      read: async (runId) => {
        try {
          return {
            mimeType: 'application/jsonl',
            text: traceToJsonLines(await loadTrace(store, runId)),
          };
        } catch (error) {
          if (TraceNotFoundError.isInstance(error)) return undefined;
          throw error;
        }
      },
    },
    recordRun: () => {
      const recorder = createTraceRecorder();
      return {
        runId: recorder.runId,
        record: (event) => recorder.record(event),
        finish: (error) => saveTrace(store, recorder.finish(error)),
      };
    },
  };
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'rlm-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe('rlm_query over streamable HTTP', () => {
  test('lists the tool; a call with paths reports progress and returns the answer and its cost', async () => {
    const { runs, recordRun } = memoryRuns();
    await using served = await serveScripted(
      [
        repl(
          'const errors = context.split("\\n").filter((line) => line.startsWith("ERROR")); print(errors.length)',
        ),
        'FINAL(2 errors: disk full, timeout)',
      ],
      {
        service: { contextRoot: { directory: root }, runs, recordRun },
        http: { mcp: true, token },
      },
    );
    const client = await connect(served.server.url);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([rlmQueryToolName]);
      expect(Object.keys(tools[0]!.inputSchema.properties ?? {})).toEqual(
        expect.arrayContaining(['question', 'text', 'paths']),
      );
      const progress: Progress[] = [];
      const result = await client.callTool(
        {
          name: rlmQueryToolName,
          arguments: { question: 'Which errors are logged?', paths: ['logs/app.log'] },
        },
        undefined,
        { onprogress: (report) => progress.push(report), resetTimeoutOnProgress: true },
      );
      expect(result.isError).toBeFalsy();
      const content = result.content as { type: string; text: string }[];
      expect(content[0]).toEqual({ type: 'text', text: '2 errors: disk full, timeout' });
      expect(content[1]!.text).toMatch(
        /^\$0\.\d{4} · 2 steps · \d+ tokens · 2 model calls · [\d.]+ s · run \d{8}-\d{6}-\w+$/,
      );
      expect(result.structuredContent).toMatchObject({
        answer: '2 errors: disk full, timeout',
        complete: true,
        model: scriptedModelId,
        steps: 2,
        usage: { model_calls: 2 },
      });
      expect((result.structuredContent as { cost_usd: number }).cost_usd).toBeGreaterThan(0);
      expect(progress.map((report) => report.message)).toEqual(
        expect.arrayContaining(['run started', 'step 1', 'step 2', 'answered']),
      );
      expect(progress.map((report) => report.progress)).toEqual(
        progress.map((_, index) => index + 1),
      );
      // The log file went into the sandbox, never into the prompt.
      expect(JSON.stringify(served.model.requests)).not.toContain('disk full');
      const [entry] = await served.log.waitFor(1);
      expect(entry).toMatchObject({ protocol: 'mcp', outcome: 'answered', model: scriptedModelId });
    } finally {
      await client.close();
    }
  });

  test('the runs and their traces are resources', async () => {
    const { runs, recordRun } = memoryRuns();
    await using served = await serveScripted(['FINAL(first)'], {
      service: { runs, recordRun },
      http: { mcp: true, token },
    });
    const client = await connect(served.server.url);
    try {
      const result = await client.callTool({
        name: rlmQueryToolName,
        arguments: { question: 'First?', text: 'ctx' },
      });
      const runId = (result.structuredContent as { run_id: string }).run_id;
      expect(runId).toMatch(/^\d{8}-\d{6}-\w+$/);
      const listed = await client.listResources();
      expect(listed.resources.map((resource) => resource.uri)).toEqual(
        expect.arrayContaining(['rlm://runs', `rlm://runs/${runId}`]),
      );
      const list = await client.readResource({ uri: 'rlm://runs' });
      expect(JSON.parse((list.contents[0] as { text: string }).text)).toMatchObject([
        { runId, query: 'First?', status: 'answered' },
      ]);
      const trace = await client.readResource({ uri: `rlm://runs/${runId}` });
      expect(trace.contents[0]).toMatchObject({ mimeType: 'application/jsonl' });
      const firstLine = JSON.parse((trace.contents[0] as { text: string }).text.split('\n')[0]!);
      expect(firstLine).toMatchObject({ kind: 'run', runId, query: 'First?' });
      await expect(
        client.readResource({ uri: 'rlm://runs/20000101-000000-000000' }),
      ).rejects.toThrow(/no run 20000101-000000-000000/);
    } finally {
      await client.close();
    }
  });

  test('bad input comes back as a tool error: a path outside the root, an unknown model', async () => {
    await using served = await serveScripted([], {
      service: { contextRoot: { directory: root } },
      http: { mcp: true, token },
    });
    const client = await connect(served.server.url);
    try {
      const outside = await client.callTool({
        name: rlmQueryToolName,
        arguments: { question: 'Read it', paths: ['../../etc/passwd'] },
      });
      expect(outside.isError).toBe(true);
      expect((outside.content as { text: string }[])[0]!.text).toContain(
        'paths[0] "../../etc/passwd" is outside the context root; name a path inside it (context_path_outside_root)',
      );
      const unknown = await client.callTool({
        name: rlmQueryToolName,
        arguments: { question: 'Q', model: 'rlm:nobody:nothing' },
      });
      expect(unknown.isError).toBe(true);
      expect((unknown.content as { text: string }[])[0]!.text).toContain('(model_not_found)');
      expect(served.model.requests).toHaveLength(0);
      const entries = await served.log.waitFor(2);
      expect(entries.map((entry) => entry.outcome)).toEqual(['rejected', 'rejected']);
    } finally {
      await client.close();
    }
  });

  test('a call the client cancels stops the run; no model call follows', async () => {
    await using served = await serveScripted(
      [repl('print(1)'), { text: 'never', delayMs: 600_000 }],
      {
        http: { mcp: true, token },
      },
    );
    const client = await connect(served.server.url);
    try {
      const controller = new AbortController();
      const call = client
        .callTool({ name: rlmQueryToolName, arguments: { question: 'Slow?' } }, undefined, {
          signal: controller.signal,
        })
        .catch((error: unknown) => error);
      while (served.model.requests.length < 2)
        await new Promise((resolve) => setTimeout(resolve, 10));
      controller.abort();
      expect(await call).toBeInstanceOf(Error);
      const [entry] = await served.log.waitFor(1);
      expect(entry).toMatchObject({ protocol: 'mcp', outcome: 'cancelled' });
      expect(served.model.requests).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});
