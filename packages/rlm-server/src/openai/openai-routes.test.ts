import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { scriptedModelId, serveScripted } from '../test-support/serve-scripted.js';

/** Bad input and clients that go away, through the official `openai` SDK and plain fetch. */

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
/** A scripted reply that waits until the run is aborted (the model honours the signal). */
const hang = { text: 'never sent', delayMs: 600_000 };

let base: string;
let root: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'rlm-server-routes-'));
  root = path.join(base, 'root');
  await mkdir(root);
  await writeFile(path.join(base, 'secret.txt'), 'outside the root');
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function client(baseURL: string): OpenAI {
  return new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0 });
}

/** The APIError a request rejects with. */
async function apiError(request: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await request;
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}

describe('bad requests: OpenAI error bodies, nothing sent to the model', () => {
  test.each([
    [[], 'missing_query', 'messages must be a non-empty array'],
    [
      [
        { role: 'user', content: 'Q?' },
        { role: 'assistant', content: 'A.' },
      ],
      'missing_query',
      "the last message must be the user's question",
    ],
    [[{ role: 'user', content: '   ' }], 'missing_query', 'the last message has no text'],
    [
      [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }],
      'unsupported_content',
      'which an RLM cannot read',
    ],
  ])('messages %j: 400 %s', async (messages, code, message) => {
    await using served = await serveScripted([]);
    const error = await apiError(
      client(served.baseURL).chat.completions.create({
        model: scriptedModelId,
        messages: messages as OpenAI.ChatCompletionMessageParam[],
      }),
    );
    expect(error.status).toBe(400);
    expect(error.code).toBe(code);
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain(message);
    expect(served.model.requests).toHaveLength(0);
    const [entry] = await served.log.waitFor(1);
    expect(entry).toMatchObject({ status: 400, outcome: 'rejected', error: code });
  });

  test('an unknown model: 404 model_not_found naming the served ones', async () => {
    await using served = await serveScripted([]);
    const error = await apiError(
      client(served.baseURL).chat.completions.create({
        model: 'gpt-4.1',
        messages: [{ role: 'user', content: 'Hi?' }],
      }),
    );
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.code).toBe('model_not_found');
    expect(error.message).toContain(`use one of rlm, ${scriptedModelId}`);
  });

  test('a context path outside the root: 400, and the file is not read', async () => {
    await using served = await serveScripted([], { service: { contextRoot: { directory: root } } });
    for (const requested of ['../secret.txt', path.join(base, 'secret.txt')]) {
      const error = await apiError(
        client(served.baseURL).chat.completions.create({
          model: scriptedModelId,
          messages: [{ role: 'user', content: 'What is the secret?' }],
          // @ts-expect-error: the rlm extension
          context_paths: [requested],
        }),
      );
      expect(error.status).toBe(400);
      expect(error.code).toBe('context_path_outside_root');
      expect(error.param).toBe('context_paths[0]');
      expect(error.message).not.toContain('outside the root');
    }
    expect(served.model.requests).toHaveLength(0);
  });

  test('a limit over the server maximum: 400 naming it', async () => {
    await using served = await serveScripted([], { service: { limits: { maxModelCalls: 10 } } });
    const error = await apiError(
      client(served.baseURL).chat.completions.create({
        model: scriptedModelId,
        messages: [{ role: 'user', content: 'Q?' }],
        // @ts-expect-error: the rlm extension
        max_model_calls: 11,
      }),
    );
    expect(error.status).toBe(400);
    expect(error.code).toBe('limit_over_maximum');
    expect(error.param).toBe('max_model_calls');
  });

  test('a body that is not JSON: 400 invalid_json', async () => {
    await using served = await serveScripted([]);
    const response = await fetch(`${served.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"messages": [',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'invalid_json', type: 'invalid_request_error' },
    });
  });
});

describe('the run slots', () => {
  test('past --concurrency: 429 with retry-after, and the running request is unaffected', async () => {
    await using served = await serveScripted([hang], { service: { concurrency: 1 } });
    const controller = new AbortController();
    const first = client(served.baseURL)
      .chat.completions.create(
        { model: scriptedModelId, messages: [{ role: 'user', content: 'Slow?' }] },
        { signal: controller.signal },
      )
      .catch((error: unknown) => error);
    await waitUntil(() => served.model.requests.length === 1);
    const response = await fetch(`${served.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: scriptedModelId,
        messages: [{ role: 'user', content: 'Fast?' }],
      }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({
      error: { code: 'concurrency_limit', type: 'rate_limit_error' },
    });
    controller.abort();
    expect(await first).toBeInstanceOf(OpenAI.APIUserAbortError);
  });
});

describe('a client that goes away mid-run', () => {
  test.each([false, true])(
    'stream %s: the run is cancelled and no model call follows',
    async (stream) => {
      await using served = await serveScripted([repl('print("first step")'), hang]);
      const controller = new AbortController();
      const request = client(served.baseURL).chat.completions.create(
        {
          model: scriptedModelId,
          messages: [{ role: 'user', content: 'Take your time.' }],
          stream,
        },
        { signal: controller.signal },
      );
      const consumed = (async () => {
        const result = await request;
        if (stream) for await (const _chunk of result as AsyncIterable<unknown>) void _chunk;
      })().catch((error: unknown) => error);
      // The second model call is running (and waits until aborted): then the client leaves.
      await waitUntil(() => served.model.requests.length === 2);
      controller.abort();
      // The SDK ends a stream it aborted quietly; a plain request rejects.
      if (stream) expect(await consumed).toBeUndefined();
      else expect(await consumed).toBeInstanceOf(OpenAI.APIUserAbortError);
      // The run logs itself once it has ended and its sandbox is disposed: no call can follow.
      const [entry] = await served.log.waitFor(1);
      expect(entry).toMatchObject({ outcome: 'cancelled', status: 499, stream });
      expect(served.model.requests).toHaveLength(2);
      expect(served.service.concurrency.running).toBe(0);
    },
  );
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
