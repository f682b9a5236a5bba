import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createSqliteArtifactStore } from '@rlm/artifacts';
import { createRLM } from '@rlm/core';
import { createOpenAIModel } from '@rlm/openai';
import { fakeChatText, startFakeChatCompletionsServer } from '@rlm/openai/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
const steps = Number(process.env.STEPS ?? 200);
let arrivals = [];
const server = await startFakeChatCompletionsServer({ apiKey: null, keepRequests: 1, handler: () => { arrivals.push(performance.now()); return fakeChatText(arrivals.length - 1 < steps ? '```repl\nprint(1)\n```' : 'FINAL(done)'); } });
const dir = mkdtempSync(join(tmpdir(), 'ps-'));
const store = await createSqliteArtifactStore({ path: join(dir, 'b.sqlite') });
for (let run = 0; run < 2; run++) {
  arrivals = [];
  const c0 = process.cpuUsage();
  const rlm = createRLM({ llm: createOpenAIModel({ model: 'bench', apiKey: 'b', baseURL: server.url, maxRetries: 0 }), sandbox: createSesSandbox(), maxIterations: steps + 5, ...(process.env.NOSTORE ? {} : { artifacts: store.scoped('r' + run) }) });
  const answer = await rlm.query('Step cost benchmark', { context: 'a small context' }).catch(e => e);
  await rlm[Symbol.asyncDispose]();
  const c = process.cpuUsage(c0);
  const gaps = arrivals.slice(1).map((a, i) => a - arrivals[i]).slice(5).sort((a, b) => a - b);
  console.log('run', run, 'answer', String(answer?.answer ?? answer).slice(0, 30), 'median gap', gaps[gaps.length >> 1].toFixed(2), 'cpu/step', ((c.user + c.system) / 1000 / steps).toFixed(2));
}
await store[Symbol.asyncDispose](); await server.close();
