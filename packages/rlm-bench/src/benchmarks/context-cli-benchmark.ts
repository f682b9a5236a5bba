import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Benchmark } from '../benchmark.js';
import { makeContext } from '../make-context.js';
import { median } from '../median.js';
import { runCliProcess } from '../run-cli-process.js';
import { startScriptedChatServer } from '../scripted-chat-server.js';
import { withTemporaryDirectory } from '../with-temporary-directory.js';

const contextBytes = 50 * 1024 * 1024;

/**
 * Issue 31's "handing over a 50 MiB context adds 368 ms before the first model call": the
 * built `rlm` CLI, a process per run with the default SQLite store in a fresh directory, from
 * spawn to the first request at a loopback OpenAI-compatible server, with a 50 MiB text file as
 * the context against a 1 KiB one, alternating.
 */
export const contextCliBenchmark: Benchmark = {
  name: 'context-cli',
  description: 'rlm start to the first model request: a 50 MiB text context vs 1 KiB',
  async run(options) {
    await using server = await startScriptedChatServer();
    return await withTemporaryDirectory(async (directory) => {
      const large = join(directory, 'large.txt');
      const small = join(directory, 'small.txt');
      await writeFile(large, makeContext(contextBytes), 'latin1');
      await writeFile(small, makeContext(1024), 'latin1');
      let made = 0;
      const firstRequestMs = async (contextPath: string) => {
        made += 1;
        const cwd = join(directory, `run-${made}`);
        await mkdir(cwd);
        server.load(['FINAL(done)'], 0);
        const args = ['Count', '--context', contextPath, '--model', 'openai:bench'];
        const result = await runCliProcess(
          [...args, '--base-url', server.url, '--quiet', '--max-retries', '0'],
          { cwd, env: { OPENAI_API_KEY: 'bench' } },
        );
        if (result.exitCode !== 0 || server.arrivals.length === 0) {
          throw new Error(
            `@rlm/bench: rlm exited ${result.exitCode}: ${result.stderr.slice(-300)}`,
          );
        }
        return (server.arrivals[0] as number) - result.startedAt;
      };
      const largeTimes: number[] = [];
      const smallTimes: number[] = [];
      await firstRequestMs(small);
      for (let run = 0; run < options.runs; run++) {
        options.log(`  context-cli: run ${run + 1} of ${options.runs}`);
        largeTimes.push(await firstRequestMs(large));
        smallTimes.push(await firstRequestMs(small));
      }
      const largeMs = median(largeTimes);
      const smallMs = median(smallTimes);
      return [
        {
          benchmark: 'context-cli',
          figure:
            'rlm process start to the first model request: what a 50 MiB text context adds to a 1 KiB one',
          result: { value: largeMs - smallMs, unit: 'ms' },
          baseline: { value: smallMs, unit: 'ms', label: 'start to first request, 1 KiB context' },
          ratio: { value: largeMs / smallMs, unit: 'x' },
          runs: options.runs,
          note: 'default SQLite store, a fresh directory a run; ratio = 50 MiB / 1 KiB',
        },
      ];
    });
  },
};
