import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { scriptedModelId, serveScripted } from '../test-support/serve-scripted.js';

/** The HTTP layer: bearer token, body limit, health, unknown routes. */

const token = 'test-token-3c1f0e9a';
const question = { model: scriptedModelId, messages: [{ role: 'user', content: 'Ready?' }] };

describe('the bearer token', () => {
  test('a missing or wrong token: 401 invalid_api_key; the right one passes; /health needs none', async () => {
    await using served = await serveScripted(['FINAL(yes)'], { http: { token } });
    for (const apiKey of ['wrong-token', `${token}x`]) {
      const wrong = new OpenAI({ baseURL: served.baseURL, apiKey, maxRetries: 0 });
      await expect(wrong.chat.completions.create(question as never)).rejects.toBeInstanceOf(
        OpenAI.AuthenticationError,
      );
      await expect(wrong.models.list()).rejects.toMatchObject({
        status: 401,
        code: 'invalid_api_key',
      });
    }
    const missing = await fetch(`${served.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(question),
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(await missing.json()).toMatchObject({
      error: { code: 'invalid_api_key', message: expect.stringContaining('Authorization: Bearer') },
    });
    expect(served.model.requests).toHaveLength(0);
    expect((await fetch(`${served.server.url}/health`)).status).toBe(200);
    const right = new OpenAI({ baseURL: served.baseURL, apiKey: token, maxRetries: 0 });
    const completion = await right.chat.completions.create(question as never);
    expect(completion.choices[0]!.message.content).toBe('yes');
    const entries = await served.log.waitFor(6);
    expect(entries.filter((entry) => entry.status === 401)).toHaveLength(5);
  });
});

describe('the body limit', () => {
  test('a body over the limit: 413, with or without a Content-Length', async () => {
    await using served = await serveScripted([], { http: { maxBodyBytes: 4096 } });
    const oversized = { ...question, context: 'x'.repeat(5000) };
    const error = await new OpenAI({
      baseURL: served.baseURL,
      apiKey: 'k',
      maxRetries: 0,
    }).chat.completions
      .create(oversized as never)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 413, code: 'request_too_large' });
    const body = new TextEncoder().encode(JSON.stringify(oversized));
    const chunked = await fetch(`${served.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(body.slice(0, 3000));
          controller.enqueue(body.slice(3000));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(served.model.requests).toHaveLength(0);
  });
});

describe('routes', () => {
  test('/health says ok and how many runs run; an unknown route is a 404 in the OpenAI shape', async () => {
    await using served = await serveScripted([]);
    const health = await fetch(`${served.server.url}/health`);
    expect(await health.json()).toEqual({ status: 'ok', running: 0, concurrency: 4 });
    const unknown = await fetch(`${served.server.url}/v1/completions`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      error: { code: 'not_found', message: expect.stringContaining('POST /v1/chat/completions') },
    });
  });
});
