import { join } from 'node:path';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createSqliteArtifactStore } from '@rlm/artifacts';
import { createRLM } from '@rlm/core';
import { createOpenAIModel } from '@rlm/openai';
import { fakeChatText, startFakeChatCompletionsServer } from '@rlm/openai/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
const steps = Number(process.env.STEPS ?? 200);
const names = Array.from({ length: 50 }, (_, i) => `v${i}`);
const repl = (c) => '```repl\n' + c + '\n```';
let n = 0; let atRest;
const server = await startFakeChatCompletionsServer({ apiKey: null, keepRequests: 1, handler: () => {
  n++;
  if (n === 1) return fakeChatText(repl(names.map((x, i) => `var ${x} = { id: ${i}, tags: ['a', 'b'], n: 0 };`).join('\n')));
  if (n < steps) return fakeChatText(repl(names.map((x) => `${x}.n += 1;`).join('\n')));
  return new Promise((resolve) => setTimeout(() => { atRest = snapshot(); resolve(fakeChatText('FINAL(done)')); }, 1500));
} });
const mib = (b) => (b / 1048576).toFixed(1);
function snapshot() {
  const rss = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
  const m = process.memoryUsage();
  globalThis.gc?.();
  const g = process.memoryUsage();
  const rss2 = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
  return `rss ${mib(rss)} | host heapTotal ${mib(m.heapTotal)} used ${mib(m.heapUsed)} external ${mib(m.external)} arrayBuffers ${mib(m.arrayBuffers)} | after gc: used ${mib(g.heapUsed)} total ${mib(g.heapTotal)} rss ${mib(rss2)}`;
}
const dir = mkdtempSync(join(tmpdir(), 'ps-'));
const store = await createSqliteArtifactStore({ path: join(dir, 'b.sqlite') });
const rlm = createRLM({ llm: createOpenAIModel({ model: 'bench', apiKey: 'b', baseURL: server.url, maxRetries: 0 }), sandbox: createSesSandbox(), maxIterations: steps + 10, artifacts: store });
const context = 'x'.repeat(1 << 20);
console.log('before', snapshot());
const r = await rlm.query('Keep counting', context);
console.log('steps', steps, 'answer', r.answer);
console.log('at rest', atRest);
await rlm[Symbol.asyncDispose](); await store[Symbol.asyncDispose](); await server.close();
