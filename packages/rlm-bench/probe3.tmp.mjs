import { fakeChatText, startFakeChatCompletionsServer } from '@rlm/openai/testing';
import OpenAI from 'openai';
import { register } from 'node:module';
const { keepAliveFetch } = await import('@rlm/core');
const server = await startFakeChatCompletionsServer({ apiKey: null, keepRequests: 1, handler: () => fakeChatText('an answer') });
const client = new OpenAI({ apiKey: 'x', baseURL: server.url, maxRetries: 0 });
const fast = new OpenAI({ apiKey: 'x', baseURL: server.url, maxRetries: 0, fetch: keepAliveFetch });
const body = { model: 'bench', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } };
const sdk = (c) => async () => { const s = await c.chat.completions.create(body); let n = 0; for await (const _ of s) n++; if (n < 2) throw new Error('few chunks ' + n); };
async function time(name, fn, n = 100) { for (let i = 0; i < 5; i++) await fn(); const t = []; const c0 = process.cpuUsage(); for (let i = 0; i < n; i++) { const s = performance.now(); await fn(); t.push(performance.now() - s); } const c = process.cpuUsage(c0); t.sort((a, b) => a - b); console.log(name.padEnd(14), t[n >> 1].toFixed(2), 'ms median; cpu/req', ((c.user + c.system) / 1000 / n).toFixed(2)); }
for (let k = 0; k < 6; k++) { await time('sdk global', sdk(client)); await time('sdk keepalive', sdk(fast)); }
await server.close();
