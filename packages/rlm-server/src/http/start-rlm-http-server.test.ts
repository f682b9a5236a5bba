import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { createScriptedModel } from '@rlm/core/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ServerSettingsError } from '../errors/server-settings-error.js';
import { createRlmService } from '../rlm-service.js';
import { scriptedModelId, serveScripted } from '../test-support/serve-scripted.js';
import { startRlmHttpServer } from './start-rlm-http-server.js';

/**
 * The OpenAI-compatible endpoint through the official `openai` SDK, against a served scripted
 * model and the real SES sandbox.
 */

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

/** Text the model must never be sent: it lies past any preview of the context. */
const secret = 'MARKER-7f3a91';
/** The marker lies between the head and the tail of the context the prompt previews. */
const longContext = `${'filler line of the document\n'.repeat(400)}the code word is ${secret}\n${'filler line of the document\n'.repeat(400)}`;

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'rlm-server-http-'));
  await mkdir(path.join(root, 'docs'));
  await writeFile(path.join(root, 'docs', 'notes.md'), longContext);
  await writeFile(path.join(tmpdir(), 'rlm-server-outside.txt'), 'outside');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function client(baseURL: string, apiKey = 'unused'): OpenAI {
  return new OpenAI({ baseURL, apiKey, maxRetries: 0 });
}

/** What every request sent to the scripted model holds, as one string. */
function sentToModel(requests: readonly unknown[]): string {
  return JSON.stringify(requests);
}

describe('POST /v1/chat/completions, not streamed', () => {
  test('the last user message is the query; the answer, usage with cost, and the run come back', async () => {
    await using served = await serveScripted([
      repl('const words = context.split(" ").length; print(words)'),
      'FINAL(counted)',
    ]);
    const completion = await client(served.baseURL).chat.completions.create({
      model: scriptedModelId,
      messages: [{ role: 'user', content: 'How many words?' }],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-[0-9a-f]{24}$/);
    expect(completion.model).toBe(scriptedModelId);
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'counted' });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    const usage = completion.usage as OpenAI.CompletionUsage & {
      cost_usd?: number;
      model_calls?: number;
    };
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.model_calls).toBe(2);
    // $1 per million tokens either way.
    expect(usage.cost_usd).toBeCloseTo(usage.total_tokens / 1e6, 12);
    expect((completion as unknown as { rlm: { iterations: number } }).rlm.iterations).toBe(2);
    const [entry] = await served.log.waitFor(1);
    expect(entry).toMatchObject({
      requestId: completion.id,
      protocol: 'openai',
      model: scriptedModelId,
      stream: false,
      status: 200,
      outcome: 'answered',
    });
    expect(entry!.usage?.modelCalls).toBe(2);
  });

  test('earlier messages, the context field and context_paths are the context, never the prompt', async () => {
    await using served = await serveScripted(
      [
        repl(
          'const found = [context.messages[1].content, context.context, context.files["docs/notes.md"]].map((text) => /MARKER-\\w+/.exec(text)?.[0]); print(found.join(","))',
        ),
        (request) => {
          const output = JSON.stringify(request.messages.at(-1));
          return `FINAL(${/MARKER-\w+,MARKER-\w+,MARKER-\w+/.exec(output)?.[0] ?? 'not found'})`;
        },
      ],
      { service: { contextRoot: { directory: root } } },
    );
    const completion = await client(served.baseURL).chat.completions.create({
      model: 'rlm',
      messages: [
        { role: 'system', content: 'You answer from the documents.' },
        { role: 'user', content: longContext },
        { role: 'assistant', content: 'Noted.' },
        { role: 'user', content: 'Which code words appear?' },
      ],
      // @ts-expect-error: the rlm extensions of the request body
      context: longContext,
      context_paths: ['docs/notes.md'],
    });
    expect(completion.choices[0]!.message.content).toBe(`${secret},${secret},${secret}`);
    const first = served.model.requests[0]!;
    expect(JSON.stringify(first.messages)).toContain('Which code words appear?');
    // The prompt shows only where the context is and a preview: the marker lies past it.
    expect(sentToModel(served.model.requests.slice(0, 1))).not.toContain(secret);
    expect(completion.model).toBe(scriptedModelId);
  });

  test('a text file attached as a file part is context', async () => {
    await using served = await serveScripted([
      // One file alone is the context: here the parsed JSON.
      repl('print(typeof context, JSON.stringify(context.rows))'),
      (request) =>
        `FINAL(${JSON.stringify(request.messages.at(-1)).includes('object [1,2]') ? 'seen' : 'missing'})`,
    ]);
    const completion = await client(served.baseURL).chat.completions.create({
      model: scriptedModelId,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in the report?' },
            {
              type: 'file',
              file: {
                filename: 'report.json',
                file_data: `data:application/json;base64,${Buffer.from('{"rows": [1, 2]}').toString('base64')}`,
              },
            },
          ],
        },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe('seen');
    expect(JSON.stringify(served.model.requests[0]!.messages)).toContain('What is in the report?');
  });

  test('a budget that runs out returns the partial answer with finish_reason length', async () => {
    await using served = await serveScripted([repl('print(1)'), repl('print(2)'), 'FINAL(late)']);
    const completion = await client(served.baseURL).chat.completions.create({
      model: scriptedModelId,
      messages: [{ role: 'user', content: 'Count slowly.' }],
      // @ts-expect-error: the rlm extension
      max_model_calls: 1,
    });
    expect(completion.choices[0]!.finish_reason).toBe('length');
    expect(
      (completion as unknown as { rlm: { incomplete: { reason: string } } }).rlm.incomplete.reason,
    ).toBe('model_calls');
    const [entry] = await served.log.waitFor(1);
    expect(entry).toMatchObject({ outcome: 'incomplete', status: 200 });
  });

  test('GET /v1/models lists rlm and the served ids', async () => {
    await using served = await serveScripted([]);
    const models = await client(served.baseURL).models.list();
    expect(models.data.map((model) => model.id)).toEqual(['rlm', scriptedModelId]);
    expect((await client(served.baseURL).models.retrieve(scriptedModelId)).id).toBe(
      scriptedModelId,
    );
  });
});

describe('POST /v1/chat/completions, streamed', () => {
  test('the answer arrives as chunks, then the usage and [DONE]; progress as comments the SDK skips', async () => {
    await using served = await serveScripted([repl('print(6 * 7)'), 'FINAL(42)']);
    const stream = await client(served.baseURL).chat.completions.create({
      model: scriptedModelId,
      messages: [{ role: 'user', content: 'What is 6 x 7?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? null).join('')).toBe('42');
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage?.total_tokens).toBeGreaterThan(0);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    const [entry] = await served.log.waitFor(1);
    expect(entry).toMatchObject({ stream: true, outcome: 'answered', requestId: chunks[0]!.id });
  });

  test('the raw stream: SSE comments `: rlm {...}` report the steps before the answer', async () => {
    await using served = await serveScripted([repl('print(1)'), 'FINAL(done)']);
    const response = await fetch(`${served.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: scriptedModelId,
        stream: true,
        messages: [{ role: 'user', content: 'Go.' }],
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    const progress = text
      .split('\n\n')
      .filter((event) => event.startsWith(': rlm '))
      .map(
        (event) =>
          JSON.parse(event.slice(': rlm '.length)) as { message: string; sequence: number },
      );
    expect(progress.map((report) => report.message)).toEqual(
      expect.arrayContaining(['run started', 'step 1', 'step 2', 'answered']),
    );
    expect(progress.map((report) => report.sequence)).toEqual(
      progress.map((_, index) => index + 1),
    );
    expect(text.indexOf(': rlm ')).toBeLessThan(text.indexOf('"content":"done"'));
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });
});

describe('startRlmHttpServer', () => {
  test('a host other than loopback needs a token; with one it listens', async () => {
    const service = await createRlmService({
      models: { [scriptedModelId]: { model: createScriptedModel([]) } },
      rlm: { sandbox: createSesSandbox() },
    });
    await expect(startRlmHttpServer({ service, host: '0.0.0.0', port: 0 })).rejects.toThrow(
      ServerSettingsError,
    );
    await expect(startRlmHttpServer({ service, host: '0.0.0.0', port: 0 })).rejects.toThrow(
      /a bearer token is required/,
    );
    await expect(startRlmHttpServer({ service, port: 0, token: ' ' })).rejects.toThrow(
      /token is empty/,
    );
    const server = await startRlmHttpServer({
      service,
      host: '0.0.0.0',
      port: 0,
      token: 'long-token',
    });
    try {
      const health = await fetch(`http://127.0.0.1:${server.port}/health`);
      expect(health.status).toBe(200);
      const models = await fetch(`http://127.0.0.1:${server.port}/v1/models`);
      expect(models.status).toBe(401);
    } finally {
      await server.close();
    }
  });

  test('close: a running request finishes within the grace period; then nothing listens', async () => {
    // The model answers only once the server is closing.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const scripted = createScriptedModel(['FINAL(finished)'], { modelId: 'scripted' });
    await using served = await serveScripted({
      ...scripted,
      requests: scripted.requests,
      generate: async (request, options) => {
        const answer = scripted.generate(request, options);
        await released;
        return answer;
      },
    });
    const request = client(served.baseURL).chat.completions.create({
      model: scriptedModelId,
      messages: [{ role: 'user', content: 'Finish?' }],
    });
    await waitUntil(() => served.model.requests.length === 1);
    const closed = served.server.close({ graceMs: 60_000 });
    expect(served.service.closing).toBe(true);
    expect(served.service.concurrency.running).toBe(1);
    release();
    const completion = await request;
    expect(completion.choices[0]!.message.content).toBe('finished');
    await closed;
    await expect(fetch(`${served.server.url}/health`)).rejects.toThrow();
    const [entry] = await served.log.waitFor(1);
    expect(entry).toMatchObject({ outcome: 'answered' });
  });

  test('close: a run still going when the grace period ends is cut; its stream ends with an error', async () => {
    await using served = await serveScripted([{ text: 'never', delayMs: 600_000 }]);
    const stream = await client(served.baseURL).chat.completions.create({
      model: scriptedModelId,
      messages: [{ role: 'user', content: 'Forever?' }],
      stream: true,
    });
    const consumed = (async () => {
      for await (const _chunk of stream) void _chunk;
    })().catch((error: unknown) => error);
    await waitUntil(() => served.model.requests.length === 1);
    // A long grace period first (SIGTERM), then none (a second SIGTERM): the run is cut now.
    const closing = served.server.close({ graceMs: 600_000 });
    expect(served.server.close({ graceMs: 0 })).toBe(closing);
    await closing;
    const error = await consumed;
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ code: 'shutting_down' });
    const [entry] = await served.log.waitFor(1);
    expect(entry).toMatchObject({ outcome: 'cut', status: 503 });
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
