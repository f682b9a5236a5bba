import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { queuedJobData } from './batch-queue-job.js';
import { parseBatchArguments } from '../commands/batch/parse-batch-arguments.js';
import type { BatchJob } from '../jobs/parse-batch-jobs.js';

function runOptions(argv: readonly string[]) {
  const command = parseBatchArguments(['queries.jsonl', ...argv], {});
  if (command.kind !== 'batch') throw new Error(`expected a batch, got ${command.kind}`);
  return command.options.run;
}

const batch = { id: 'b', maxArtifactBytes: undefined };
const job: BatchJob = { id: 1, key: '1', query: 'q', contextFile: undefined, line: 1 };

describe('queuedJobData', () => {
  test('a context file carries --strict to the worker, for the batch and a job of its own', () => {
    const strict = runOptions(['--context', 'settings.json', '--strict']);
    expect(queuedJobData(job, strict, batch).context).toEqual({
      file: path.resolve('settings.json'),
      strict: true,
    });
    const own = { ...job, contextFile: '/data/own.json' };
    expect(queuedJobData(own, strict, batch).context).toEqual({
      file: '/data/own.json',
      strict: true,
    });
    // Without --strict the job stays as earlier versions queued it.
    const lenient = runOptions(['--context', 'settings.json']);
    expect(queuedJobData(job, lenient, batch).context).toEqual({
      file: path.resolve('settings.json'),
    });
  });
});
