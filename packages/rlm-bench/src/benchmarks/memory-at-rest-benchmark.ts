import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Benchmark } from '../benchmark.js';
import { makeContext } from '../make-context.js';
import { median } from '../median.js';
import { runCliProcess } from '../run-cli-process.js';
import { type ScriptedChatStep, startScriptedChatServer } from '../scripted-chat-server.js';
import { withTemporaryDirectory } from '../with-temporary-directory.js';

const steps = 200;
const variables = 50;
const restMs = 1_000;
const mib = 1024 * 1024;

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

/** 50 small variables defined at step 1, each changed at every step after it, then the answer. */
function script(): ScriptedChatStep[] {
  const names = Array.from({ length: variables }, (_, index) => `v${index}`);
  const lines: ScriptedChatStep[] = [
    repl(
      names
        .map((name, index) => `var ${name} = { id: ${index}, tags: ['a', 'b'], n: 0 };`)
        .join('\n'),
    ),
  ];
  for (let step = 2; step <= steps; step++) {
    lines.push(repl(names.map((name) => `${name}.n += 1;`).join('\n')));
  }
  lines.push('FINAL(done)');
  return lines;
}

/** The resident memory of process `pid` now (`VmRSS`, its threads included), in bytes. */
function residentBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/**
 * Issue 31's memory at rest: the built `rlm` CLI (default SQLite store, SES sandbox, a 1 MiB
 * text context) runs 200 steps over 50 small variables against a loopback OpenAI-compatible
 * server; the process's resident memory (the host and the sandbox's worker thread: one process)
 * is read while it waits for the last answer, held back 1 s. Baseline: the same process at rest
 * the same way after its first step.
 */
export const memoryAtRestBenchmark: Benchmark = {
  name: 'memory',
  description: 'resident memory of rlm at rest after a 200-step run with 50 variables',
  async run(options) {
    const runs = Math.min(options.runs, 3);
    await using server = await startScriptedChatServer();
    return await withTemporaryDirectory(async (directory) => {
      const contextPath = join(directory, 'context.txt');
      await writeFile(contextPath, makeContext(mib), 'latin1');
      const atEnd: number[] = [];
      const afterFirst: number[] = [];
      for (let run = 0; run < runs; run++) {
        options.log(`  memory: run ${run + 1} of ${runs}`);
        const cwd = join(directory, `run-${run}`);
        await mkdir(cwd);
        for (const measureAt of [steps, 1]) {
          let pid = 0;
          let resident = 0;
          const lines = script().slice(0, measureAt);
          lines.push('FINAL(done)');
          server.load(lines, 0, {
            lastDelayMs: restMs,
            onArrival: (index) => {
              if (index !== lines.length - 1) return;
              setTimeout(() => {
                resident = residentBytes(pid);
              }, restMs - 200);
            },
          });
          const result = await runCliProcess(
            [
              'Keep counting',
              '--context',
              contextPath,
              '--model',
              'openai:bench',
              '--base-url',
              server.url,
              '--quiet',
              '--max-iterations',
              String(steps + 10),
              '--max-retries',
              '0',
            ],
            {
              cwd,
              env: { OPENAI_API_KEY: 'bench' },
              onSpawn: (spawned) => {
                pid = spawned;
              },
            },
          );
          if (result.exitCode !== 0 || resident === 0) {
            throw new Error(
              `@rlm/bench: rlm exited ${result.exitCode}: ${result.stderr.trim().slice(-300)}`,
            );
          }
          (measureAt === steps ? atEnd : afterFirst).push(resident);
        }
      }
      const end = median(atEnd) / mib;
      const first = median(afterFirst) / mib;
      return [
        {
          benchmark: 'memory',
          figure: `resident memory of the rlm process at rest after ${steps} steps with ${variables} variables (host + worker)`,
          result: { value: end, unit: 'MiB' },
          baseline: { value: first, unit: 'MiB', label: 'at rest after 1 step' },
          ratio: { value: end / first, unit: 'x' },
          target: { text: '< 120 MiB', met: end < 120 },
          runs,
          note: 'VmRSS while the last answer is held back 1 s; default SQLite store, SES sandbox, 1 MiB context',
        },
      ];
    });
  },
};
