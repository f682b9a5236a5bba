import { join } from 'node:path';
import { createSqliteArtifactStore } from '@rlm/artifacts';
import { type ArtifactStore, createRLM, keepAliveFetch } from '@rlm/core';
import { createOpenAIModel } from '@rlm/openai';
import { fakeChatText, startFakeChatCompletionsServer } from '@rlm/openai/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
import OpenAI from 'openai';
import type { Benchmark } from '../benchmark.js';
import { collectRunEvents, type TimedEvent } from '../collect-run-events.js';
import { median } from '../median.js';
import { withTemporaryDirectory } from '../with-temporary-directory.js';

const steps = 30;
/** The first gaps are left out: the JIT, the worker and the store warm up. */
const warmUpSteps = 5;

/** Medians of the gaps between successive arrivals, after the warm-up. */
function stepGap(arrivals: readonly number[]): number {
  const gaps = arrivals.slice(1).map((at, index) => at - (arrivals[index] as number));
  return median(gaps.slice(warmUpSteps));
}

/**
 * A loopback fake Chat Completions API that answers at once and notes each arrival; while
 * `recording`, it also keeps each request's body.
 */
async function startServer(reply: (index: number) => string) {
  let arrivals: number[] = [];
  const bodies: unknown[] = [];
  let recording = false;
  const server = await startFakeChatCompletionsServer({
    apiKey: null,
    keepRequests: 1,
    handler: (_request, recorded) => {
      arrivals.push(performance.now());
      if (recording) bodies.push(recorded.body);
      return fakeChatText(reply(arrivals.length - 1));
    },
  });
  return {
    url: server.url,
    /** Runs `work` keeping the bodies of the requests it makes; resolves with them. */
    async record(work: () => Promise<unknown>): Promise<unknown[]> {
      recording = true;
      try {
        await work();
      } finally {
        recording = false;
      }
      return bodies.splice(0);
    },
    /** The arrivals since the last call, and starts afresh. */
    take(): number[] {
      const taken = arrivals;
      arrivals = [];
      return taken;
    },
    [Symbol.asyncDispose]: () => server[Symbol.asyncDispose](),
  };
}

/** Where the gap between two requests of a step goes, in ms (medians over the steps). */
interface StepPhases {
  /** From the request's arrival to the answer read (the `text` event): server and SDK. */
  readonly answer: number;
  /** From the answer read to its code's result (the `execution` event): the worker round trip. */
  readonly execute: number;
  /** From the code's result to the next request's arrival: listing, checkpoint, prompt, send. */
  readonly next: number;
}

/** The phases of the steps after the warm-up, from the server's arrivals and the run's events. */
function stepPhases(arrivals: readonly number[], events: readonly TimedEvent[]): StepPhases {
  const at = (type: string, iteration: number) =>
    events.find(
      ({ event }) => event.type === type && 'iteration' in event && event.iteration === iteration,
    )?.at;
  const answer: number[] = [];
  const execute: number[] = [];
  const next: number[] = [];
  // Request `index` asks for step `index + 1`.
  for (let index = warmUpSteps + 1; index + 1 < arrivals.length; index++) {
    const text = at('text', index + 1);
    const execution = at('execution', index + 1);
    if (text === undefined || execution === undefined) continue;
    answer.push(text - (arrivals[index] as number));
    execute.push(execution - text);
    next.push((arrivals[index + 1] as number) - execution);
  }
  return { answer: median(answer), execute: median(execute), next: median(next) };
}

/** A `createRLM` run of 30 trivial steps (`print(1)`); its events, timed as they came. */
async function rlmRun(url: string, artifacts: ArtifactStore | undefined): Promise<TimedEvent[]> {
  await using rlm = createRLM({
    model: createOpenAIModel({ model: 'bench', apiKey: 'bench', baseURL: url, maxRetries: 0 }),
    sandbox: createSesSandbox(),
    limits: { maxIterations: steps + 5 },
    ...(artifacts ? { artifacts: { store: artifacts } } : {}),
  });
  const events = await collectRunEvents(rlm, 'Step cost benchmark', 'a small context');
  const final = events.find(({ event }) => event.type === 'final');
  if (final === undefined) throw new Error('@rlm/bench: the step-cost run gave no answer');
  return events;
}

/** The same number of requests by a bare official SDK client, one after another, streamed. */
async function bareSdkRun(client: OpenAI): Promise<void> {
  for (let request = 0; request <= steps; request++) {
    const stream = await client.chat.completions.create({
      model: 'bench',
      messages: [{ role: 'user', content: 'Step cost benchmark' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _chunk of stream) {
      // Read to the end, as the adapter does.
    }
  }
}

/**
 * A bare SDK client sending the very requests a run of rlm sent (its system prompt and growing
 * transcript), one after another, streamed: the baseline with the server's and the SDK's work
 * for a body of the same size.
 */
async function sameRequestsRun(client: OpenAI, bodies: readonly unknown[]): Promise<void> {
  for (const body of bodies) {
    const stream = await client.chat.completions.create({
      ...(body as OpenAI.ChatCompletionCreateParamsStreaming),
      stream: true,
    });
    for await (const _chunk of stream) {
      // Read to the end, as the adapter does.
    }
  }
}

/**
 * Issue 31's per-step cost: the gap between two model requests of a trivial step (`print(1)`)
 * of a `createRLM` run through the OpenAI adapter, the SES sandbox and a SQLite store, at a
 * loopback fake API answering at once; against the gap between two requests of a bare official
 * OpenAI SDK client (streamed, as the adapter asks) to the same server, alternating. Also the
 * same run without the store, and the bare client over `keepAliveFetch` (what the adapters send
 * through), the transport's share; and the bare client sending the requests rlm sent (the same
 * bodies, so the server parses and counts as much), a baseline that leaves only rlm's own work.
 */
export const stepCostBenchmark: Benchmark = {
  name: 'step',
  description: 'per-step cost of a trivial step vs a bare OpenAI SDK round trip',
  async run(options) {
    const runs = options.runs;
    await using server = await startServer((index) =>
      index < steps ? '```repl\nprint(1)\n```' : 'FINAL(done)',
    );
    await using bare = await startServer(() => 'an answer');
    const client = new OpenAI({ apiKey: 'bench', baseURL: bare.url, maxRetries: 0 });
    // What the adapter sends through by default: the transport's share of a step.
    const keepAliveClient = new OpenAI({
      apiKey: 'bench',
      baseURL: bare.url,
      maxRetries: 0,
      fetch: keepAliveFetch,
    });
    return await withTemporaryDirectory(async (directory) => {
      const store = await createSqliteArtifactStore({ path: join(directory, 'bench.sqlite') });
      try {
        const stored: number[] = [];
        const unstored: number[] = [];
        const sdk: number[] = [];
        const keepAlive: number[] = [];
        const phases: StepPhases[] = [];
        const sentBodies = await server.record(() => rlmRun(server.url, store.scoped('warm-up')));
        server.take();
        const sameRequests: number[] = [];
        await bareSdkRun(client);
        bare.take();
        for (let run = 0; run < runs; run++) {
          options.log(`  step: run ${run + 1} of ${runs}`);
          const events = await rlmRun(server.url, store.scoped(`run-${run}`));
          const arrivals = server.take();
          stored.push(stepGap(arrivals));
          phases.push(stepPhases(arrivals, events));
          await bareSdkRun(client);
          sdk.push(stepGap(bare.take()));
          await rlmRun(server.url, undefined);
          unstored.push(stepGap(server.take()));
          await bareSdkRun(keepAliveClient);
          keepAlive.push(stepGap(bare.take()));
          await sameRequestsRun(client, sentBodies);
          sameRequests.push(stepGap(bare.take()));
        }
        const storedMs = median(stored);
        const sdkMs = median(sdk);
        const unstoredMs = median(unstored);
        const keepAliveMs = median(keepAlive);
        const sameRequestsMs = median(sameRequests);
        const note = `median gap of steps ${warmUpSteps + 1}-${steps} per run; OpenAI SDK, loopback fake API answering at once`;
        return [
          {
            benchmark: 'step',
            figure: 'trivial step (print(1)), SQLite store: request to next request',
            result: { value: storedMs, unit: 'ms' },
            baseline: { value: sdkMs, unit: 'ms', label: 'bare OpenAI SDK, request to request' },
            ratio: { value: storedMs / sdkMs, unit: 'x' },
            target: { text: '<= 1x', met: storedMs <= sdkMs },
            runs,
            note,
          },
          ...(
            [
              ['answer', 'of which the request to the answer read (server, SDK stream)'],
              ['execute', 'of which the answer to its code executed (the worker round trip)'],
              [
                'next',
                'of which the code executed to the next request (listing, checkpoint, prompt, send)',
              ],
            ] as const
          ).map(([phase, figure]) => {
            const value = median(phases.map((measured) => measured[phase]));
            return {
              benchmark: 'step',
              figure: `trivial step, SQLite store: ${figure}`,
              result: { value, unit: 'ms' },
              baseline: { value: sdkMs, unit: 'ms', label: 'bare OpenAI SDK, request to request' },
              ratio: { value: value / sdkMs, unit: 'x' },
              runs,
              note: 'medians of each phase over the steps, so they need not add up to the gap',
            };
          }),
          {
            benchmark: 'step',
            figure: 'trivial step (print(1)), no store: request to next request',
            result: { value: unstoredMs, unit: 'ms' },
            baseline: { value: sdkMs, unit: 'ms', label: 'bare OpenAI SDK, request to request' },
            ratio: { value: unstoredMs / sdkMs, unit: 'x' },
            runs,
            note,
          },
          {
            benchmark: 'step',
            figure:
              "trivial step, SQLite store, against the bare OpenAI SDK sending rlm's own requests",
            result: { value: storedMs, unit: 'ms' },
            baseline: {
              value: sameRequestsMs,
              unit: 'ms',
              label: 'bare OpenAI SDK sending the bodies rlm sent, request to request',
            },
            ratio: { value: storedMs / sameRequestsMs, unit: 'x' },
            runs,
            note: `${note}; the same bodies, so the server parses and counts as much`,
          },
          {
            benchmark: 'step',
            figure:
              "bare OpenAI SDK over keepAliveFetch (the adapters' default): request to request",
            result: { value: keepAliveMs, unit: 'ms' },
            baseline: { value: sdkMs, unit: 'ms', label: 'bare OpenAI SDK, global fetch' },
            ratio: { value: keepAliveMs / sdkMs, unit: 'x' },
            runs,
            note,
          },
        ];
      } finally {
        await store[Symbol.asyncDispose]();
      }
    });
  },
};
