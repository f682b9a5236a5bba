import { defaultMaxQueryChars } from '../../jobs/parse-batch-jobs.js';
import {
  defaultBatchConcurrency,
  defaultMaxBatchArtifactBytes,
  defaultStallTimeoutMs,
} from './parse-batch-arguments.js';

/** What `rlm batch --help` prints. */
export const batchHelp = `Usage: rlm batch <queries.jsonl> [--context <file> | --context-dir <dir>]
                 [--concurrency <n>] [--out <results.jsonl>] [--max-batch-cost <usd>]
                 [--context-root <dir>] [run flags]

Runs every query of a JSONL file, one {"id": ..., "query": "...", "context"?: "<file>"} a line,
several at once in this process. A line's own context (relative to the JSONL file's directory)
replaces the batch's --context or --context-dir. Ids are compared as strings (1 and "1" are
the same id).

      --concurrency <n>        jobs run at once (default ${defaultBatchConcurrency})
      --context-root <dir>     the directory a line's own context must be a regular file in,
                               symbolic links resolved (default: the JSONL file's directory);
                               a job whose context is outside it, a device, a FIFO or a
                               /proc file fails saying so, and the batch goes on
  -o, --out <file>             append results here, one JSON line per job as it ends:
                               {id, answer, usage, costUsd, durationMs} or {id, error, usage,
                               durationMs}; rerunning the same command skips the ids answered
                               there and retries the failed ones (default: stdout). One batch
                               writes a file at a time (<file>.lock beside it)
      --max-batch-cost <usd>   once the batch has spent this, no job starts; running ones
                               finish and the rest are reported as not run
      --max-query-chars <n>    a longer query is refused for its line (default ${defaultMaxQueryChars.toLocaleString('en-US')})
      --max-batch-artifact-bytes <size>
                               what all the jobs may store() together (default ${defaultMaxBatchArtifactBytes / 1024 ** 3} GiB)
      --artifact-ttl <time>    with --store redis://...: every key a job writes expires this
                               long after its last write (default 7d)
      --queue <url>            put the jobs on this Redis server's BullMQ queue instead, for
                               rlm worker --queue <url> processes on any machine to run; this
                               process collects their results (it needs no API key)
      --stall-timeout <time>   with --queue: stop waiting, saying why, once no worker has made
                               progress on the batch for this long (default ${defaultStallTimeoutMs / 60_000}m)

Every run flag (--model, --max-cost, --max-model-calls, --store, --store-errors,
--connect-timeout, --tools, --quiet, ...) applies to each job; see rlm --help. Bad lines are
reported with their line number and skipped.
Exit codes: 0 every job answered, 1 some failed, were skipped, not run or not written, 2 usage
error (an unreachable store or queue included), 3 every job answered but the store failed
during some (--store-errors warn: 0), 130 interrupted, 143 terminated.
`;
