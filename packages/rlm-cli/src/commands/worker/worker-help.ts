import { defaultMaxQueryChars } from '../../jobs/parse-batch-jobs.js';

/** The `rlm worker --help` text. */
export const workerHelp = `Usage: rlm worker --queue redis://host:port [--concurrency <n>] [--lock-duration <time>]
                  [--context-root <dir>] [--store redis://host:port] [run flags]

Runs the jobs rlm batch --queue puts on the queue, until stopped (Ctrl-C or SIGTERM: the
running jobs finish first; a second signal quits at once). Start any number, on any machine
that sees the same context files at the same paths.

      --queue <url>            the Redis server of the queue (required)
      --context-root <dir>     the directory every job's context must lie in, symbolic links
                               resolved (default: the working directory); a job whose
                               context is outside it, a device, a FIFO or a /proc file fails
                               saying so, and the worker goes on
      --concurrency <n>        jobs run at once by this worker (default 2)
      --lock-duration <time>   how long a job stays claimed without news from its worker
                               (default 30s); a killed worker's job goes to another after it
      --store redis://...      share checkpoints between workers: a job taken over from a
                               killed worker resumes from its last checkpoint
      --artifact-ttl <time>    every key a job writes to a Redis store, and its result on the
                               queue, expires this long after its last write (default 7d)
      --max-query-chars <n>    a job whose query is longer fails without a model call
                               (default ${defaultMaxQueryChars.toLocaleString('en-US')})

Every run flag (--model, --max-cost, --max-model-calls, --tools, --connect-timeout, ...)
applies to each job. A job of rlm eval --queue carries its variant's models and limits: they
replace the worker's, each limit bounded by the worker's own (--max-cost, --max-iterations,
...); base URLs, keys, tools, the store and the context stay the worker's. A job's result is written beside the queue before the queue is told, and
kept and written again when Redis refuses it, so a Redis restart loses no answer.
`;
