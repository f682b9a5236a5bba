import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createSqliteArtifactStore } from '@rlm/artifacts';
import { type ArtifactStore, createRLM, type SandboxFactory } from '@rlm/core';
import { createScriptedSandbox } from '@rlm/core/testing';
import { createOpenAIModel } from '@rlm/openai';
import { createSesSandbox } from '@rlm/sandbox-ses';
import { createRlmService, startRlmHttpServer } from '@rlm/server';
import { createTraceRecorder, saveTrace } from '@rlm/trace';
import type { Benchmark, BenchOptions, BenchRow } from '../benchmark.js';
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
 * one sandbox factory, the same model API. Given `traces`, each run's trace is recorded and kept
 * in that store in the background, as `rlm serve` does with its default store: the baseline of the
 * served figure with a store then does the same work, and what is left is serving's own.
 */
function directRunner(model: ScriptedChatServer, sandbox: SandboxFactory, traces?: ArtifactStore) {
  const llm = createOpenAIModel({ model: 'bench', baseURL: model.url, apiKey: 'bench' });
  const keeping = new Set<Promise<unknown>>();
  const stream = async (): Promise<unknown> => {
    await using rlm = createRLM({ model: llm, sandbox });
    const recorder = traces === undefined ? undefined : createTraceRecorder();
    let answer: unknown;
    for await (const event of rlm.queryStream(question)) {
      recorder?.record(event);
      if (event.type === 'final' && event.depth === 0) answer = event.answer;
    }
    if (recorder !== undefined && traces !== undefined) {
      const kept = saveTrace(traces, recorder.finish()).finally(() => keeping.delete(kept));
      keeping.add(kept);
    }
    return answer;
  };
  return {
    answer:
      traces === undefined
        ? async (): Promise<unknown> => {
            await using rlm = createRLM({ model: llm, sandbox });
            return (await rlm.query(question)).answer;
          }
        : stream,
    stream: async (): Promise<void> => {
      await stream();
    },
    /** Waits for the traces still being kept. */
    settled: () => Promise.all(keeping),
  };
}

/** Every request of a figure answers FINAL at once: one model call, no code. */
function loadAnswers(model: ScriptedChatServer, count: number): void {
  model.load(
    Array.from({ length: count }, () => 'FINAL(ok)'),
    0,
  );
}

/** Medians of a run of alternating requests: served, direct, and what serving added. */
interface LatencyRun {
  readonly served: number;
  readonly direct: number;
  readonly added: number;
  /** Process CPU time per request (this process: client, server, sandbox threads), ms. */
  readonly servedCpu: number;
  readonly directCpu: number;
}

/** `samples` direct and served requests, alternating; then the same counted in CPU time. */
async function measureLatency(
  direct: () => Promise<unknown>,
  served: () => Promise<unknown>,
  samples: number,
): Promise<LatencyRun> {
  const servedMs: number[] = [];
  const directMs: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    directMs.push(await timeAsync(direct));
    servedMs.push(await timeAsync(served));
  }
  const cpuPerRequest = async (work: () => Promise<unknown>) => {
    const before = process.cpuUsage();
    for (let sample = 0; sample < samples; sample++) await work();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / samples;
  };
  const directCpu = await cpuPerRequest(direct);
  const servedCpu = await cpuPerRequest(served);
  return {
    served: median(servedMs),
    direct: median(directMs),
    added: median(servedMs) - median(directMs),
    servedCpu,
    directCpu,
  };
}

/** Rows of the added latency (and, in process, CPU time) over `options.runs` runs. */
async function latencyRows(
  options: BenchOptions,
  label: string,
  direct: () => Promise<unknown>,
  served: () => Promise<unknown>,
  countCpu: boolean,
): Promise<BenchRow[]> {
  const samples = options.quick ? 10 : 30;
  for (let warm = 0; warm < 5; warm++) {
    await direct();
    await served();
  }
  const runs: LatencyRun[] = [];
  for (let run = 0; run < options.runs; run++)
    runs.push(await measureLatency(direct, served, samples));
  const added = median(runs.map((run) => run.added));
  options.log(`  ${label}: added ${added.toFixed(2)} ms`);
  const rows: BenchRow[] = [
    {
      benchmark,
      figure: `1-step run, one request at a time: ${label} minus a direct createRLM call (median of ${samples} requests a run)`,
      result: { value: added, unit: 'ms' },
      baseline: {
        value: median(runs.map((run) => run.direct)),
        unit: 'ms',
        label: 'direct createRLM + query',
      },
      target: { text: '< 5 ms added', met: added < 5 },
      runs: options.runs,
      note: `served request: ${median(runs.map((run) => run.served)).toFixed(2)} ms`,
    },
  ];
  if (countCpu) {
    const addedCpu = median(runs.map((run) => run.servedCpu - run.directCpu));
    rows.push({
      benchmark,
      figure: `1-step run: process CPU time per request, ${label} minus a direct createRLM call (${samples} requests a run; client, server and sandbox threads in one process)`,
      result: { value: addedCpu, unit: 'ms' },
      baseline: {
        value: median(runs.map((run) => run.directCpu)),
        unit: 'ms',
        label: 'direct createRLM + query',
      },
      runs: options.runs,
      note: 'CPU time does not count waiting on a loaded machine',
    });
  }
  return rows;
}

/**
 * `rlm serve` against a direct `createRLM` call, both on a loopback OpenAI-compatible model that
 * answers FINAL at once (a 1-step run): the latency one request adds (sequential, alternating
 * with the direct call; goal under 5 ms), first with `@rlm/server` in this process on the scripted
 * sandbox (part `serve-in-process`: the server's own cost, and its CPU time), then with the built
 * `rlm serve` as its own process on the SES sandbox, without and with the default store (part
 * `serve-process`); requests per second with 8 clients at once; and 32 streaming requests at once.
 */
export const serveBenchmark: Benchmark = {
  name: benchmark,
  description: 'rlm serve: added latency, requests per second, 32 concurrent streams',
  parts: ['serve-in-process', 'serve-process'],
  async run(options) {
    await using model = await startScriptedChatServer();
    const rows: BenchRow[] = [];
    const wants = (part: string) => options.parts.length === 0 || options.parts.includes(part);
    const perRequest = (options.quick ? 10 : 30) * 3 * options.runs + 10;
    if (wants('serve-in-process')) {
      // The sandbox of the scripted runs (no worker thread, no code run): what is left of a
      // 1-step run is the loop, the model call and, served, the server's own work.
      const sandbox = (): SandboxFactory => createScriptedSandbox({});
      const direct = directRunner(model, sandbox());
      const service = await createRlmService({
        models: {
          'rlm:openai:bench': {
            model: createOpenAIModel({ model: 'bench', baseURL: model.url, apiKey: 'bench' }),
          },
        },
        rlm: { sandbox: sandbox() },
        concurrency: streams,
      });
      const server = await startRlmHttpServer({ service, port: 0 });
      try {
        loadAnswers(model, perRequest * 2);
        rows.push(
          ...(await latencyRows(
            options,
            '@rlm/server in this process (scripted sandbox)',
            () => direct.answer(),
            () => servedAnswer(`${server.url}/v1`),
            true,
          )),
        );
      } finally {
        await server.close();
      }
    }
    if (!wants('serve-process')) return rows;
    const sesSandbox = createSesSandbox();
    return await withTemporaryDirectory(async (cwd) => {
      for (const store of [false, true]) {
        await using served = await startServe(model, cwd, store);
        // With a store, the direct runs keep their traces in a SQLite file of their own, as the
        // served ones do in the default store: both sides do the same work.
        const traces = store
          ? await createSqliteArtifactStore({ path: `${cwd}/direct-traces.sqlite` })
          : undefined;
        const direct = directRunner(model, sesSandbox, traces);
        try {
          loadAnswers(model, perRequest * 2);
          rows.push(
            ...(await latencyRows(
              options,
              store
                ? 'rlm serve (traces kept in the default SQLite store; the direct calls keep theirs in SQLite too)'
                : 'rlm serve (--no-store)',
              () => direct.answer(),
              () => servedAnswer(served.baseURL),
              false,
            )),
          );
        } finally {
          await direct.settled();
          await traces?.close();
        }
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
          note: `rlm serve --concurrency ${streams}: none refused`,
        });
      }
      return rows;
    });
  },
};
