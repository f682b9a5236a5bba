import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createRLM } from '@rlm/core';
import { createOpenAIModel } from '@rlm/openai';
import { createSesSandbox } from '@rlm/sandbox-ses';
import type { Benchmark, BenchRow } from '../benchmark.js';
import { median } from '../median.js';
import { cliEntryPoint } from '../run-cli-process.js';
import { type ScriptedChatServer, startScriptedChatServer } from '../scripted-chat-server.js';
import { timeAsync } from '../time-async.js';
import { withTemporaryDirectory } from '../with-temporary-directory.js';

const benchmark = 'serve';
/** Requests at once in the throughput figure. */
const clients = 8;
/** Requests each client sends in a run of the throughput figure. */
const requestsPerClient = 25;
/** Streaming requests sent at once. */
const streams = 32;
const question = 'What is the answer?';

/** A running `rlm serve` process and its OpenAI base URL. */
interface ServeProcess extends AsyncDisposable {
  readonly baseURL: string;
}

/** Starts the built `rlm serve` on a free port, the scripted server as its model. */
async function startServe(
  model: ScriptedChatServer,
  cwd: string,
  store: boolean,
): Promise<ServeProcess> {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [
      cliEntryPoint(),
      'serve',
      '--port',
      '0',
      '-m',
      'openai:bench',
      '--base-url',
      model.url,
      '--concurrency',
      String(streams),
      '--quiet',
      ...(store ? [] : ['--no-store']),
    ],
    { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } },
  );
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      const match = /on (http:\/\/[^/\s]+)\/v1/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) =>
      reject(new Error(`@rlm/bench: rlm serve exited ${code}: ${stderr}`)),
    );
  });
  return {
    baseURL: `${url}/v1`,
    async [Symbol.asyncDispose]() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** One non-streamed completion from the served process; resolves to its answer. */
async function servedAnswer(baseURL: string): Promise<string> {
  const response = await fetch(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'rlm', messages: [{ role: 'user', content: question }] }),
  });
  const body = (await response.json()) as { choices?: { message: { content: string } }[] };
  const answer = body.choices?.[0]?.message.content;
  if (answer === undefined)
    throw new Error(`@rlm/bench: rlm serve answered ${JSON.stringify(body)}`);
  return answer;
}

/** One streamed completion; resolves once `[DONE]` arrived, to the streamed answer. */
async function servedStream(baseURL: string): Promise<string> {
  const response = await fetch(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'rlm',
      stream: true,
      messages: [{ role: 'user', content: question }],
    }),
  });
  const text = await response.text();
  if (!text.trimEnd().endsWith('data: [DONE]'))
    throw new Error(`@rlm/bench: a stream ended without [DONE]: ${text}`);
  return text;
}

/**
 * The same 1-step run without the server: a fresh `createRLM` per request (as `rlm serve` makes),
 * one SES sandbox factory, the same model API.
 */
function directRunner(model: ScriptedChatServer) {
  const llm = createOpenAIModel({ model: 'bench', baseURL: model.url, apiKey: 'bench' });
  const sandbox = createSesSandbox();
  return {
    async answer(): Promise<unknown> {
      await using rlm = createRLM({ llm, sandbox });
      return (await rlm.query(question)).answer;
    },
    async stream(): Promise<void> {
      await using rlm = createRLM({ llm, sandbox });
      for await (const _event of rlm.queryStream(question)) void _event;
    },
  };
}

/** Every request of a figure answers FINAL at once: one model call, no code. */
function loadAnswers(model: ScriptedChatServer, count: number): void {
  model.load(
    Array.from({ length: count }, () => 'FINAL(ok)'),
    0,
  );
}

/**
 * `rlm serve` against a direct `createRLM` call, both on a loopback OpenAI-compatible model that
 * answers FINAL at once (a 1-step run): the latency one request adds (sequential, alternating
 * with the direct call; goal under 5 ms), requests per second with 8 clients at once, and 32
 * streaming requests at once.
 */
export const serveBenchmark: Benchmark = {
  name: benchmark,
  description: 'rlm serve: added latency, requests per second, 32 concurrent streams',
  async run(options) {
    await using model = await startScriptedChatServer();
    const direct = directRunner(model);
    return await withTemporaryDirectory(async (cwd) => {
      const rows: BenchRow[] = [];
      for (const store of [false, true]) {
        await using served = await startServe(model, cwd, store);
        const samples = options.quick ? 10 : 40;
        loadAnswers(model, 10 + samples * 2 * options.runs);
        for (let warm = 0; warm < 5; warm++) {
          await direct.answer();
          await servedAnswer(served.baseURL);
        }
        const servedMs: number[] = [];
        const directMs: number[] = [];
        const added: number[] = [];
        for (let run = 0; run < options.runs; run++) {
          const runServed: number[] = [];
          const runDirect: number[] = [];
          for (let sample = 0; sample < samples; sample++) {
            runDirect.push(await timeAsync(() => direct.answer()));
            runServed.push(await timeAsync(() => servedAnswer(served.baseURL)));
          }
          servedMs.push(median(runServed));
          directMs.push(median(runDirect));
          added.push(median(runServed) - median(runDirect));
        }
        options.log(
          `  ${store ? 'with the store' : '--no-store'}: added ${median(added).toFixed(2)} ms`,
        );
        rows.push({
          benchmark,
          figure: `1-step run, one request at a time: rlm serve (${store ? 'trace kept in the default SQLite store' : '--no-store'}) minus a direct createRLM call (median of ${samples} requests a run)`,
          result: { value: median(added), unit: 'ms' },
          baseline: { value: median(directMs), unit: 'ms', label: 'direct createRLM + query' },
          target: { text: '< 5 ms added', met: median(added) < 5 },
          runs: options.runs,
          note: `served request: ${median(servedMs).toFixed(2)} ms, fetch from this process to the rlm serve process`,
        });
        if (store) continue;
        const total = clients * requestsPerClient;
        loadAnswers(model, total * 2 * options.runs);
        const servedRate: number[] = [];
        const directRate: number[] = [];
        for (let run = 0; run < options.runs; run++) {
          const concurrently = (work: () => Promise<unknown>) =>
            timeAsync(() =>
              Promise.all(
                Array.from({ length: clients }, async () => {
                  for (let request = 0; request < requestsPerClient; request++) await work();
                }),
              ),
            );
          directRate.push((total * 1000) / (await concurrently(() => direct.answer())));
          servedRate.push(
            (total * 1000) / (await concurrently(() => servedAnswer(served.baseURL))),
          );
        }
        rows.push({
          benchmark,
          figure: `1-step runs, ${clients} clients at once, ${total} requests a run: rlm serve requests per second`,
          result: { value: median(servedRate), unit: 'req/s' },
          baseline: {
            value: median(directRate),
            unit: 'req/s',
            label: `${clients} direct createRLM queries at once`,
          },
          ratio: { value: median(servedRate) / median(directRate), unit: 'x' },
          runs: options.runs,
        });
        loadAnswers(model, streams * 2 * options.runs);
        const servedStreams: number[] = [];
        const directStreams: number[] = [];
        for (let run = 0; run < options.runs; run++) {
          directStreams.push(
            await timeAsync(() =>
              Promise.all(Array.from({ length: streams }, () => direct.stream())),
            ),
          );
          servedStreams.push(
            await timeAsync(() =>
              Promise.all(Array.from({ length: streams }, () => servedStream(served.baseURL))),
            ),
          );
        }
        rows.push({
          benchmark,
          figure: `${streams} streaming requests at once (1-step runs), until every [DONE]`,
          result: { value: median(servedStreams), unit: 'ms' },
          baseline: {
            value: median(directStreams),
            unit: 'ms',
            label: `${streams} direct queryStream at once`,
          },
          ratio: { value: median(servedStreams) / median(directStreams), unit: 'x' },
          runs: options.runs,
          note: `--concurrency ${streams}: none refused`,
        });
      }
      return rows;
    });
  },
};
