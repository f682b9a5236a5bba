import { join } from 'node:path';
import { createSqliteArtifactStore } from '@rlm/artifacts';
import { type ArtifactStore, createRLM } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
import type { Benchmark, BenchRow } from '../benchmark.js';
import { collectRunEvents, type TimedEvent } from '../collect-run-events.js';
import { makeContext } from '../make-context.js';
import { median } from '../median.js';
import { withTemporaryDirectory } from '../with-temporary-directory.js';

const contextBytes = 50 * 1024 * 1024;
const lightSteps = 10;

/** The heavy step of issue 13: split the 50 MB context into words and count them in a Map. */
const heavyStep =
  'const words = context.split(/\\s+/);\nconst counts = new Map();\nfor (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);\nprint(words.length, counts.size)';

/** A 50 MB string variable of the model's own (a copy of the context, so it is saved). */
const largeStringStep = "const text = context.slice(0, -1) + '.';\nprint(text.length)";

function script(first: string): string[] {
  const replies = [`\`\`\`repl\n${first}\n\`\`\``, '```repl\nlet step = 1;\nprint(step)\n```'];
  for (let step = 2; step <= lightSteps; step++)
    replies.push('```repl\nstep += 1;\nprint(step)\n```');
  replies.push('FINAL(done)');
  return replies;
}

/** Root step start times, in order. */
function stepStarts(events: readonly TimedEvent[]): number[] {
  return events
    .filter(({ event }) => event.type === 'step-start' && event.depth === 0)
    .map(({ at }) => at);
}

interface RunTimes {
  /** From the first step's start to the second's: the heavy (or large-string) step. */
  readonly firstStepMs: number;
  /** Median time per light step (each from its start to the next step's start). */
  readonly lightStepMs: number;
  /** The whole query, the last checkpoint's save included. */
  readonly totalMs: number;
  /** The `checkpoint` events' durationMs (snapshot start to save end, off the critical path). */
  readonly checkpointMs: readonly number[];
}

async function runOnce(
  first: string,
  context: string,
  artifacts: ArtifactStore | undefined,
): Promise<RunTimes> {
  await using rlm = createRLM({
    model: createScriptedModel(script(first)),
    sandbox: createSesSandbox(),
    limits: { maxIterations: lightSteps + 3, execTimeoutMs: 120_000 },
    ...(artifacts ? { artifacts: { store: artifacts } } : {}),
  });
  const started = performance.now();
  const events = await collectRunEvents(rlm, 'Large checkpoint benchmark', context);
  const totalMs = performance.now() - started;
  const starts = stepStarts(events);
  const light = starts.slice(1, -1).map((at, index) => (starts[index + 2] as number) - at);
  return {
    firstStepMs: (starts[1] as number) - (starts[0] as number),
    lightStepMs: median(light),
    totalMs,
    checkpointMs: events.flatMap(({ event }) =>
      event.type === 'checkpoint' ? [event.durationMs] : [],
    ),
  };
}

/** The checkpoints' durations, in words (an instant model may preempt every snapshot). */
function checkpointNote(durations: readonly number[]): string {
  if (durations.length === 0) return 'no checkpoint saved: each next step preempted the snapshot';
  return `${durations.length} checkpoints saved, durationMs median ${Math.round(median(durations))} ms`;
}

/** Time from `query()` to the first model call: resuming the heavy run's checkpoint, or fresh. */
async function firstModelCallMs(
  context: string,
  artifacts: ArtifactStore,
  resume: boolean,
): Promise<number> {
  let calledAt = 0;
  await using rlm = createRLM({
    model: createScriptedModel([
      () => {
        calledAt = performance.now();
        return 'FINAL(done)';
      },
    ]),
    sandbox: createSesSandbox(),
    artifacts: { store: artifacts },
  });
  const started = performance.now();
  await rlm.query('Large checkpoint resume', context, { resume });
  return calledAt - started;
}

/**
 * Checkpoints of large variables (issue 13), through `createRLM` with the SES sandbox and an
 * instant scripted model, with a SQLite store (what `rlm` does by default) and without (what
 * `rlm --no-store` does), alternating: the heavy step (split + Map count over a 50 MB context)
 * and the 10 light steps after it; and a 50 MB string variable left untouched over 10 light
 * steps.
 */
export const largeCheckpointBenchmark: Benchmark = {
  name: 'checkpoint-large',
  description: 'checkpoints of a 50 MB heavy step and of an untouched 50 MB variable',
  async run(options) {
    const context = makeContext(contextBytes);
    const runs = Math.min(options.runs, 3);
    return withTemporaryDirectory(async (directory) => {
      const store = await createSqliteArtifactStore({ path: join(directory, 'bench.sqlite') });
      try {
        const rows: BenchRow[] = [];
        for (const [label, first] of [
          ['heavy step (split + Map count over 50 MB)', heavyStep],
          ['untouched 50 MB string variable', largeStringStep],
        ] as const) {
          const stored: RunTimes[] = [];
          const bare: RunTimes[] = [];
          for (let run = 0; run < runs; run++) {
            options.log(`  ${label}: run ${run + 1} of ${runs}`);
            stored.push(await runOnce(first, context, store.scoped(`${label}-${run}`)));
            bare.push(await runOnce(first, context, undefined));
          }
          const pick = (times: RunTimes[], field: 'firstStepMs' | 'lightStepMs' | 'totalMs') =>
            median(times.map((time) => time[field]));
          const firstWith = pick(stored, 'firstStepMs');
          const firstWithout = pick(bare, 'firstStepMs');
          const lightWith = pick(stored, 'lightStepMs');
          const lightWithout = pick(bare, 'lightStepMs');
          const totalWith = pick(stored, 'totalMs');
          const totalWithout = pick(bare, 'totalMs');
          const isHeavy = first === heavyStep;
          rows.push(
            {
              benchmark: 'checkpoint-large',
              figure: `${label}: the step, SQLite store / none`,
              result: { value: firstWith, unit: 'ms' },
              baseline: { value: firstWithout, unit: 'ms', label: 'no store' },
              ratio: { value: firstWith / firstWithout, unit: 'x' },
              ...(isHeavy
                ? { target: { text: '<= 1.15x', met: firstWith / firstWithout <= 1.15 } }
                : {}),
              runs,
              note: 'instant scripted model; step start to next step start',
            },
            {
              benchmark: 'checkpoint-large',
              figure: `${label}: each of ${lightSteps} light steps after it, store minus none`,
              result: { value: lightWith - lightWithout, unit: 'ms' },
              baseline: { value: lightWithout, unit: 'ms', label: 'light step, no store' },
              target: { text: '<= 20 ms', met: lightWith - lightWithout <= 20 },
              runs,
              note: 'median light step per run, then the median over runs',
            },
            {
              benchmark: 'checkpoint-large',
              figure: `${label}: whole run, store / none`,
              result: { value: totalWith, unit: 'ms' },
              baseline: { value: totalWithout, unit: 'ms', label: 'no store' },
              ratio: { value: totalWith / totalWithout, unit: 'x' },
              runs,
              note: `last save awaited; ${checkpointNote(stored.flatMap((time) => time.checkpointMs))}`,
            },
          );
        }
        // A run that crashed after the heavy step, resumed: restoring its words and counts.
        const crashed = store.scoped('resume');
        {
          await using rlm = createRLM({
            model: createScriptedModel([
              `\`\`\`repl\n${heavyStep}\n\`\`\``,
              { error: new Error('crashed') },
            ]),
            sandbox: createSesSandbox(),
            limits: { execTimeoutMs: 120_000 },
            artifacts: { store: crashed },
          });
          await rlm.query('Large checkpoint resume', context).catch(() => {});
        }
        const resumed: number[] = [];
        const fresh: number[] = [];
        for (let run = 0; run < runs; run++) {
          options.log(`  resume: run ${run + 1} of ${runs}`);
          resumed.push(await firstModelCallMs(context, crashed, true));
          fresh.push(await firstModelCallMs(context, store.scoped(`fresh-${run}`), false));
        }
        const resumeMs = median(resumed);
        const freshMs = median(fresh);
        rows.push({
          benchmark: 'checkpoint-large',
          figure: '--resume of the heavy run: query start to the first model call, resumed / fresh',
          result: { value: resumeMs, unit: 'ms' },
          baseline: { value: freshMs, unit: 'ms', label: 'fresh start' },
          ratio: { value: resumeMs / freshMs, unit: 'x' },
          target: { text: '<= 2x', met: resumeMs / freshMs <= 2 },
          runs,
          note: 'restores the 7.5-million-word array and the Map from SQLite',
        });
        return rows;
      } finally {
        await store[Symbol.asyncDispose]();
      }
    });
  },
};
