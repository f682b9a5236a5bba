import { createServer, request as httpRequest, Agent } from 'node:http';
import { fakeChatText, startFakeChatCompletionsServer } from '@rlm/openai/testing';
const fake = await startFakeChatCompletionsServer({ apiKey: null, keepRequests: 1, handler: () => fakeChatText('an answer') });
const plain = createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, {'content-type':'text/event-stream'}); res.write('data: {}\n\n'); res.end('data: [DONE]\n\n'); }); });
await new Promise(r => plain.listen(0, '127.0.0.1', r));
const plainUrl = `http://127.0.0.1:${plain.address().port}/v1`;
const body = JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
const f = (url) => async () => { const r = await fetch(url + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, body }); await r.text(); };
const agent = new Agent({ keepAlive: true });
const h = (url) => () => new Promise((resolve, reject) => { const u = new URL(url + '/chat/completions'); const q = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => { res.resume(); res.on('end', resolve); }); q.on('error', reject); q.end(body); });
async function time(name, fn, n = 40) { for (let i = 0; i < 5; i++) await fn(); const t = []; const c0 = process.cpuUsage(); for (let i = 0; i < n; i++) { const s = performance.now(); await fn(); t.push(performance.now() - s); } const c = process.cpuUsage(c0); t.sort((a, b) => a - b); console.log(name.padEnd(14), t[n >> 1].toFixed(2), 'ms median; cpu/req', ((c.user + c.system) / 1000 / n).toFixed(2)); }
for (let k = 0; k < 2; k++) { await time('fetch fake', f(fake.url)); await time('fetch plain', f(plainUrl)); await time('http fake', h(fake.url)); await time('http plain', h(plainUrl)); }
await fake.close(); plain.close(); agent.destroy();
