import { fakeChatText, startFakeChatCompletionsServer } from '@rlm/openai/testing';
import { keepAliveFetch } from '@rlm/core';
import OpenAI from 'openai';
const server = await startFakeChatCompletionsServer({ apiKey: null, keepRequests: 1, handler: () => fakeChatText('an answer', { delayMs: 200 }) });
const body = { model: 'bench', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } };
for (const [name, fetchImpl] of [['global', undefined], ['keepalive', keepAliveFetch]]) {
  const c = new OpenAI({ apiKey: 'x', baseURL: server.url, maxRetries: 0, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  for (let r = 0; r < 3; r++) {
    const s = performance.now();
    await Promise.all(Array.from({ length: 64 }, async () => { const st = await c.chat.completions.create(body); for await (const _ of st) {} }));
    console.log(name, (performance.now() - s).toFixed(0), 'ms');
  }
}
await server.close();
