import { join } from 'node:path';
import { createSqliteArtifactStore } from '@rlm/artifacts';
import { type ArtifactStore, createRLM } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
import type { Benchmark } from '../benchmark.js';
import { collectRunEvents, type TimedEvent } from '../collect-run-events.js';
import { median } from '../median.js';
import { withTemporaryDirectory } from '../with-temporary-directory.js';

const variableCount = 50;

/** Code defining 50 variables of mixed kinds and sizes, from a number to a 100 KB string. */
function defineVariables(): string {
  const lines: string[] = [];
  for (let index = 0; index < variableCount; index++) {
    const name = `v${index}`;
    switch (index % 5) {
      case 0:
        lines.push(`let ${name} = ${index};`);
        break;
      case 1:
        lines.push(`let ${name} = 'text ${index} '.repeat(${index % 10 === 1 ? 10_000 : 10});`);
        break;
      case 2:
        lines.push(`let ${name} = Array.from({ length: 1000 }, (_, i) => i * ${index});`);
        break;
      case 3:
        lines.push(
          `let ${name} = Object.fromEntries(Array.from({ length: 100 }, (_, i) => ['key' + i, { n: i, s: 'v' + i }]));`,
        );
        break;
      default:
        lines.push(`let ${name} = { id: ${index}, tags: ['a', 'b'], nested: { ok: true } };`);
    }
  }
  return lines.join('\n');
}

/** A step that changes a few variables, as a model's later steps do. */
function updateVariables(step: number): string {
  return `v0 += 1; v1 = v1 + '${step}'; v2.push(${step}); v4 = { ...v4, step: ${step} }; print(v0)`;
}

function script(steps: number): string[] {
  const replies = [`Defining.\n\`\`\`repl\n${defineVariables()}\n\`\`\``];
  for (let step = 1; step < steps; step++) {
    replies.push(`Step ${step}.\n\`\`\`repl\n${updateVariables(step)}\n\`\`\``);
  }
  replies.push('FINAL(done)');
  return replies;
}

/** Host-observed time from one step's start to the next's, per step after the first. */
function stepIntervals(events: readonly TimedEvent[]): number[] {
  const starts = events
    .filter(({ event }) => event.type === 'step-start' && event.depth === 0)
    .map(({ at }) => at);
  return starts.slice(2).map((at, index) => at - (starts[index + 1] as number));
}

async function runOnce(steps: number, artifacts: ArtifactStore | undefined) {
  await using rlm = createRLM({
    model: createScriptedModel(script(steps)),
    sandbox: createSesSandbox(),
    limits: { maxIterations: steps + 2 },
    ...(artifacts ? { artifacts: { store: artifacts } } : {}),
  });
  return await collectRunEvents(rlm, 'Checkpoint benchmark', 'a small context');
}

/**
 * Checkpoint cost with 50 variables: a scripted run whose first step defines 50 variables of
 * mixed sizes and whose later steps change a few, with a SQLite artifact store (a checkpoint
 * after every step) and without (the same run, no checkpoints).
 */
export const checkpointBenchmark: Benchmark = {
  name: 'checkpoint',
  description: 'checkpoint cost per step with 50 variables',
  async run(options) {
    const steps = options.quick ? 6 : 12;
    return withTemporaryDirectory(async (directory) => {
      const store = await createSqliteArtifactStore({ path: join(directory, 'bench.sqlite') });
      try {
        const checkpointMs: number[] = [];
        const withStore: number[] = [];
        const without: number[] = [];
        await runOnce(3, undefined);
        for (let run = 0; run < options.runs; run++) {
          const stored = await runOnce(steps, store.scoped(`run-${run}`));
          for (const { event } of stored) {
            if (event.type === 'checkpoint') checkpointMs.push(event.durationMs);
          }
          withStore.push(median(stepIntervals(stored)));
          without.push(median(stepIntervals(await runOnce(steps, undefined))));
        }
        const stepWith = median(withStore);
        const stepWithout = median(without);
        return [
          {
            benchmark: 'checkpoint',
            figure: `checkpoint with ${variableCount} variables (checkpoint event durationMs)`,
            result: { value: median(checkpointMs), unit: 'ms' },
            runs: checkpointMs.length,
            note: 'SQLite, every step',
          },
          {
            benchmark: 'checkpoint',
            figure: 'per-step overhead of artifacts (step time with store minus without)',
            result: { value: stepWith - stepWithout, unit: 'ms' },
            baseline: { value: stepWithout, unit: 'ms', label: 'step without artifacts' },
            ratio: { value: stepWith / stepWithout, unit: 'x' },
            runs: options.runs,
            note: `median step of ${steps - 2} per run`,
          },
        ];
      } finally {
        await store[Symbol.asyncDispose]();
      }
    });
  },
};
