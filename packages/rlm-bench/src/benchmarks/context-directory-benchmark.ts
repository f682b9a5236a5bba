import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadContext } from '@rlm/cli';
import type { Benchmark } from '../benchmark.js';
import { compareRuns } from '../compare-runs.js';
import { withTemporaryDirectory } from '../with-temporary-directory.js';

const directories = 100;
const filesPerDirectory = 1000;
const files = directories * filesPerDirectory;

/**
 * `rlm --context-dir` on 100,000 small text files (100 directories of 1,000, a `.gitignore`
 * that every path is checked against): the whole `loadContext` (walk, filters, binary checks,
 * UTF-8 decoding, the array), against the floor of plain Node reading the same files
 * (`readdirSync` recursive, `readFileSync` of each as UTF-8).
 */
export const contextDirectoryBenchmark: Benchmark = {
  name: 'context-dir',
  description: 'loading a directory of 100,000 small files as the context',
  async run(options) {
    return withTemporaryDirectory(async (root) => {
      const directory = path.join(root, 'tree');
      for (let outer = 0; outer < directories; outer++) {
        const folder = path.join(directory, `part-${outer}`, 'nested');
        mkdirSync(folder, { recursive: true });
        for (let inner = 0; inner < filesPerDirectory; inner++) {
          writeFileSync(path.join(folder, `file-${inner}.txt`), `line ${outer}/${inner}\n`);
        }
      }
      writeFileSync(path.join(directory, '.gitignore'), '*.log\nbuild/\n');
      let loaded = 0;
      const compared = await compareRuns(
        options.runs,
        async () => {
          const context = await loadContext({ directory, maxBytes: 1 << 30 });
          loaded = context?.files ?? 0;
        },
        () => {
          const entries = readdirSync(directory, { recursive: true, withFileTypes: true });
          const texts: string[] = [];
          for (const entry of entries) {
            if (!entry.isFile() || entry.name.startsWith('.')) continue;
            texts.push(readFileSync(path.join(entry.parentPath, entry.name), 'utf8'));
          }
          if (texts.length !== files) throw new Error(`@rlm/bench: read ${texts.length} files`);
        },
      );
      if (loaded !== files) throw new Error(`@rlm/bench: loadContext loaded ${loaded} files`);
      return [
        {
          benchmark: 'context-dir',
          figure: `\`loadContext\` of a directory of ${files.toLocaleString('en-US')} small files`,
          result: { value: compared.subject, unit: 'ms' },
          baseline: {
            value: compared.baseline,
            unit: 'ms',
            label: 'readdirSync recursive + readFileSync',
          },
          ratio: { value: compared.ratio, unit: 'x' },
          target: { text: '< 5 s', met: compared.subject < 5000 },
          runs: options.runs,
          note: 'the promise API (fs.promises.readFile, 16 at a time) took about 15 s here',
        },
      ];
    });
  },
};
