import { createMemoryArtifactStore } from '@rlm/artifacts';
import { createRLM, type SandboxFactory } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { createQuickJsSandbox } from '@rlm/sandbox-quickjs';
import { createSesSandbox } from '@rlm/sandbox-ses';
import { createTraceRecorder } from '@rlm/trace';
import type { Benchmark, BenchOptions, BenchRow } from '../benchmark.js';
import { median } from '../median.js';
import { runCliProcess } from '../run-cli-process.js';
import { type ScriptedChatServer, startScriptedChatServer } from '../scripted-chat-server.js';
import { mainThreadCpuMs } from '../thread-cpu-time.js';
import { withTemporaryDirectory } from '../with-temporary-directory.js';

const benchmark = 'host-calls';
const calls = 20_000;
const targetMs = 1_000;
const code = `let made = 0;\nfor (let i = 0; i < ${calls}; i++) { await list_artifacts(); made++; }\nprint(made)`;

/** One block's cost: its wall time and the CPU time of the host's main thread meanwhile, in ms. */
interface BlockCost {
  readonly wallMs: number;
  readonly cpuMs: number;
}

/**
 * The main thread's CPU time so far, in ms: from `/proc` on Linux, else the event loop's active
 * time (which also counts time the thread waited for the CPU).
 */
function hostCpuMs(): number {
  return mainThreadCpuMs() ?? performance.eventLoopUtilization().active;
}

/** Measures `run`, which calls `mark` when the block starts and resolves once it has run. */
async function measure(run: (mark: () => void) => Promise<void>): Promise<BlockCost> {
  let startedAt = 0;
  let startedCpu = 0;
  await run(() => {
    startedAt = performance.now();
    startedCpu = hostCpuMs();
  });
  return { wallMs: performance.now() - startedAt, cpuMs: hostCpuMs() - startedCpu };
}

function checkOutput(output: string, error: string | undefined, where: string): void {
  if (error !== undefined || output.trim() !== String(calls)) {
    throw new Error(`@rlm/bench: ${where}: the block failed: ${error ?? output.slice(0, 200)}`);
  }
}

/**
 * The block in a full run: `createRLM` with an artifact store and an instant scripted model,
 * every event recorded by a trace recorder, as `rlm` and `rlm batch` do. Timed from the `code`
 * event to the `execution` event.
 */
function fullRun(factory: SandboxFactory): Promise<BlockCost> {
  return measure(async (mark) => {
    await using rlm = createRLM({
      model: createScriptedModel([`\`\`\`repl\n${code}\n\`\`\``, 'FINAL(done)']),
      sandbox: factory,
      limits: { execTimeoutMs: 600_000 },
      artifacts: { store: createMemoryArtifactStore() },
    });
    const recorder = createTraceRecorder();
    let ended = false;
    for await (const event of rlm.queryStream('Host calls benchmark', 'a small context')) {
      if (event.type === 'code') mark();
      recorder.record(event);
      if (event.type === 'execution') {
        checkOutput(event.output, event.error, 'the full run');
        ended = true;
        break;
      }
    }
    if (!ended) throw new Error('@rlm/bench: the full run ended before its block ran');
  });
}

/**
 * The calls themselves: the same block in a bare sandbox of the same factory, whose
 * `list_artifacts` lists the same kind of store, with no loop, no events and no trace.
 */
async function bareRun(factory: SandboxFactory): Promise<BlockCost> {
  const store = createMemoryArtifactStore();
  const sandbox = await factory({
    hostFunctions: { list_artifacts: () => store.catalog() },
    limits: { timeoutMs: 600_000 },
  });
  try {
    return await measure(async (mark) => {
      mark();
      const { output, error } = await sandbox.execute(code);
      checkOutput(output, error, 'the bare sandbox');
    });
  } finally {
    await sandbox.dispose();
  }
}

/** The subject and the bare sandbox, alternating after one untimed warm-up of each. */
async function compare(
  subject: () => Promise<BlockCost>,
  bare: () => Promise<BlockCost>,
  runs: number,
): Promise<{ readonly subject: BlockCost[]; readonly bare: BlockCost[] }> {
  await subject();
  await bare();
  const measured = { subject: [] as BlockCost[], bare: [] as BlockCost[] };
  for (let run = 0; run < runs; run++) {
    measured.subject.push(await subject());
    measured.bare.push(await bare());
  }
  return measured;
}

function rowsOf(
  label: string,
  how: string,
  measured: { readonly subject: readonly BlockCost[]; readonly bare: readonly BlockCost[] },
): BenchRow[] {
  const runs = measured.subject.length;
  const medianOf = (costs: readonly BlockCost[], of: (cost: BlockCost) => number) =>
    median(costs.map(of));
  const wall = medianOf(measured.subject, (cost) => cost.wallMs);
  const bareWall = medianOf(measured.bare, (cost) => cost.wallMs);
  const extraCpu = median(
    measured.subject.map((cost, run) => cost.cpuMs - measured.bare[run]!.cpuMs),
  );
  const bareCpu = medianOf(measured.bare, (cost) => cost.cpuMs);
  return [
    {
      benchmark,
      figure: `${label}: ${calls.toLocaleString('en-US')} list_artifacts() awaited in turn in one block: the host's main-thread CPU time beyond the calls themselves (${how} minus the bare sandbox's block, median of the runs' differences)`,
      result: { value: extraCpu, unit: 'ms' },
      baseline: { value: bareCpu, unit: 'ms', label: 'main-thread CPU time of the bare block' },
      target: { text: `< ${targetMs.toLocaleString('en-US')} ms`, met: extraCpu < targetMs },
      runs,
    },
    {
      benchmark,
      figure: `${label}: the same block's wall time, ${how} / bare sandbox`,
      result: { value: wall, unit: 'ms' },
      baseline: { value: bareWall, unit: 'ms', label: 'the same block in a bare sandbox' },
      ratio: { value: wall / bareWall, unit: 'x' },
      runs,
    },
  ];
}

/**
 * The same block through the `rlm` CLI as a user runs it (default SQLite store, SES sandbox, a
 * loopback OpenAI-compatible server answering from a script, a fresh working directory each
 * run): the step's time at the server, from the first request to the second, which adds one
 * model round trip and a checkpoint to the block. The process's own busy time is not seen.
 */
async function cliRun(server: ScriptedChatServer, options: BenchOptions): Promise<BlockCost> {
  return withTemporaryDirectory(async (directory) => {
    let pid: number | undefined;
    const cpuAt: number[] = [];
    server.load([`\`\`\`repl\n${code}\n\`\`\``, 'FINAL(done)'], 0, {
      onArrival: () => {
        cpuAt.push((pid === undefined ? undefined : mainThreadCpuMs(pid)) ?? Number.NaN);
      },
    });
    const result = await runCliProcess(
      ['Host calls?', '--model', 'openai:bench', '--base-url', server.url, '--quiet'],
      {
        cwd: directory,
        env: { OPENAI_API_KEY: 'bench' },
        onSpawn: (spawned) => {
          pid = spawned;
        },
      },
    );
    const [first, second] = server.arrivals;
    if (result.exitCode !== 0 || first === undefined || second === undefined) {
      throw new Error(`@rlm/bench: the rlm process failed: ${result.stderr.slice(-500)}`);
    }
    const cost = { wallMs: second - first, cpuMs: cpuAt[1]! - cpuAt[0]! };
    options.log(
      `  rlm CLI: step ${Math.round(cost.wallMs)} ms, main thread ${Math.round(cost.cpuMs)} ms CPU`,
    );
    return cost;
  });
}

/**
 * Issue 25's host calls: 20,000 cheap host calls in one block must cost the host less than 1 s
 * beyond the calls themselves, on both sandboxes and through the CLI.
 */
export const hostCallsBenchmark: Benchmark = {
  name: benchmark,
  description: `${calls.toLocaleString('en-US')} list_artifacts() calls in one block: full runs against a bare sandbox`,
  async run(options) {
    const runs = Math.min(options.runs, 5);
    const fewer = Math.min(options.runs, 3);
    const full = 'full run (createRLM + trace recorder)';
    const ses = createSesSandbox();
    const quickjs = createQuickJsSandbox();
    await using server = await startScriptedChatServer();
    return [
      ...rowsOf(
        'SES',
        full,
        await compare(
          () => fullRun(ses),
          () => bareRun(ses),
          runs,
        ),
      ),
      ...rowsOf(
        'QuickJS',
        full,
        await compare(
          () => fullRun(quickjs),
          () => bareRun(quickjs),
          fewer,
        ),
      ),
      ...rowsOf(
        'SES, rlm CLI process',
        'the step at the server',
        await compare(
          () => cliRun(server, options),
          () => bareRun(ses),
          fewer,
        ),
      ),
    ];
  },
};
