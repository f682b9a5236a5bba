import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { createSqliteArtifactStore } from '@rlm/artifacts';
import type { CheckpointInput, Message, SerializedVariableInput } from '@rlm/core';
import type { Benchmark } from '../benchmark.js';
import { median } from '../median.js';
import { withTemporaryDirectory } from '../with-temporary-directory.js';

const variableCount = 50;

/** Saves per run before the timed ones: SQLite's page cache and V8's compiled code warm up. */
const warmUpSaves = 20;

/** What the sandbox hands over for a variable it serialised: its bytes and their digest. */
function serialized(value: unknown): SerializedVariableInput {
  const bytes = serialize(value);
  return { bytes, digest: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * `ArtifactStore.saveCheckpoint` alone, on a SQLite file, in the steady state of issue 13's
 * "50 small variables" run: each save has all 50 variables changed (serialised, as the sandbox
 * sends them) and two new transcript messages. Reports the median elapsed time of a save and
 * the process CPU time it took (main thread and SQLite's threads), the inputs being built
 * before the clock starts.
 */
export const checkpointSaveBenchmark: Benchmark = {
  name: 'checkpoint-save',
  description: 'saveCheckpoint of 50 small changed variables and 2 new messages, on SQLite',
  async run(options) {
    const saves = options.quick ? 60 : 200;
    return withTemporaryDirectory(async (directory) => {
      const store = await createSqliteArtifactStore({ path: join(directory, 'bench.sqlite') });
      try {
        const elapsed: number[] = [];
        const cpu: number[] = [];
        for (let run = 0; run < options.runs; run++) {
          const values = Array.from({ length: variableCount }, (_, id) => ({
            id,
            tags: ['a', 'b'],
            n: 0,
          }));
          const names = values.map((_, id) => `v${id}`);
          const transcript: Message[] = [{ role: 'user', content: 'the query '.repeat(50) }];
          for (let save = 0; save < warmUpSaves + saves; save++) {
            for (const value of values) value.n += 1;
            // Both unique: a store never finds either already written.
            transcript.push({
              role: 'assistant',
              content: `Run ${run}, step ${save}.\n\`\`\`repl\n${names.map((name) => `${name}.n += 1;`).join('\n')}\n\`\`\``,
            });
            transcript.push({ role: 'user', content: `Run ${run}, step ${save}: no output` });
            const input: CheckpointInput = {
              runKey: `bench-run-${run}`,
              callId: 'root',
              iteration: save + 1,
              transcript: [...transcript],
              variableNames: names,
              variables: {},
              serializedVariables: Object.fromEntries(
                values.map((value, id) => [names[id], serialized(value)]),
              ),
              budget: {
                inputTokens: 0,
                outputTokens: 0,
                cacheReadTokens: 0,
                cacheWriteTokens: 0,
                modelCalls: save + 1,
                elapsedMs: save,
              },
            };
            const cpuBefore = process.cpuUsage();
            const started = performance.now();
            await store.saveCheckpoint(input);
            const ms = performance.now() - started;
            const used = process.cpuUsage(cpuBefore);
            if (save < warmUpSaves) continue;
            elapsed.push(ms);
            cpu.push((used.user + used.system) / 1000);
          }
        }
        const note = `median of ${saves} saves a run (after ${warmUpSaves} untimed), every 17th a whole entry`;
        return [
          {
            benchmark: 'checkpoint-save',
            figure: `saveCheckpoint, ${variableCount} small variables changed + 2 new messages: elapsed`,
            result: { value: median(elapsed), unit: 'ms' },
            runs: options.runs,
            note,
          },
          {
            benchmark: 'checkpoint-save',
            figure: `saveCheckpoint, ${variableCount} small variables changed + 2 new messages: process CPU time`,
            result: { value: median(cpu), unit: 'ms' },
            runs: options.runs,
            note: `${note}; main thread and SQLite's threads`,
          },
        ];
      } finally {
        await store[Symbol.asyncDispose]();
      }
    });
  },
};
