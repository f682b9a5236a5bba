import { createRLM } from '@rlm/core';
import { createOpenAIModel } from '@rlm/openai';
import { fakeChatText, startFakeChatCompletionsServer } from '@rlm/openai/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
const isStep = (request) => JSON.stringify(request.messages[0]).includes('repl');
let steps = 0; let subs = []; let stepAt = [];
const server = await startFakeChatCompletionsServer({ apiKey: null, keepRequests: 1, handler: (request) => {
  if (!isStep(request)) { subs.push(performance.now()); return fakeChatText('an answer', { delayMs: 200 }); }
  steps += 1; stepAt.push(performance.now());
  return fakeChatText(steps % 2 === 1 ? "```repl\nconst t0 = Date.now(); const answers = await Promise.all(Array.from({ length: 64 }, (_, i) => llm_query('question ' + i)));\nprint(answers.length, Date.now() - t0)\n```" : 'FINAL(done)');
} });
for (let r = 0; r < 3; r++) {
  subs = []; stepAt = [];
  const rlm = createRLM({ llm: createOpenAIModel({ model: 'bench', apiKey: 'b', baseURL: server.url, maxRetries: 10 }), sandbox: createSesSandbox() });
  const c0 = process.cpuUsage();
  const res = await rlm.query('Fan-out', 'ctx');
  const c = process.cpuUsage(c0);
  await rlm[Symbol.asyncDispose]();
  const t0 = subs[0];
  console.log(`first sub +${(t0 - stepAt[0]).toFixed(0)} ms after step; subs arrive over ${(subs[63] - t0).toFixed(0)} ms (16th +${(subs[15]-t0).toFixed(0)}, 32nd +${(subs[31]-t0).toFixed(0)}); next step ${(stepAt[1] - t0).toFixed(0)} ms after first sub; cpu ${((c.user + c.system) / 1000).toFixed(0)} ms`);
}
await server.close();
