import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describeJobId } from '../../jobs/describe-job-id.js';
import {
  type BatchJob,
  type BatchLineProblem,
  parseBatchJobs,
} from '../../jobs/parse-batch-jobs.js';
import { UsageError } from '../../usage-error.js';

/** Reads and parses the JSONL file; a line whose own context file is missing is a problem. */
export async function readBatchJobs(
  file: string,
  maxQueryChars: number,
): Promise<{ jobs: readonly BatchJob[]; problems: readonly BatchLineProblem[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'a directory, not a file'
          : error instanceof Error
            ? error.message
            : String(error);
    throw new UsageError(
      `cannot read the batch ${file}: ${reason}; pass a JSONL file of {"id": ..., "query": "..."} lines`,
      { cause: error },
    );
  }
  const parsed = parseBatchJobs(text, path.dirname(path.resolve(file)), { maxQueryChars });
  const problems = [...parsed.problems];
  const jobs: BatchJob[] = [];
  const isFile = new Map<string, Promise<boolean>>();
  for (const job of parsed.jobs) {
    if (job.contextFile !== undefined) {
      let check = isFile.get(job.contextFile);
      if (check === undefined) {
        check = stat(job.contextFile).then(
          (stats) => !stats.isDirectory(),
          () => false,
        );
        isFile.set(job.contextFile, check);
      }
      if (!(await check)) {
        problems.push({
          line: job.line,
          message: `id ${describeJobId(job.id)}: no context file ${job.contextFile}`,
        });
        continue;
      }
    }
    jobs.push(job);
  }
  problems.sort((a, b) => a.line - b.line);
  return { jobs, problems };
}
