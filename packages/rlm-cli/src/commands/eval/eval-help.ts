import { defaultBatchConcurrency, defaultStallTimeoutMs } from '../batch/parse-batch-arguments.js';
import { defaultScorerTimeoutMs } from './parse-eval-arguments.js';

/** `rlm eval --help`. */
export const evalHelp = `Usage: rlm eval <data.jsonl> [--scorer <name|./module.mjs>] [--variant name=flags]...
                [--baseline direct] [-o <results.jsonl>] [--report <report.html>] [run flags]
       rlm eval --generate sniah [--lengths 8k,128k,1m] [--n 50] [--seed 1] [-o <directory>]

Runs every item of a dataset, one {"id", "query", "context"?: file, "context_dir"?: directory,
"expected"} a line (paths relative to the dataset), with each variant, scores the answers, and
prints the mean score per variant with its confidence interval, cost per item and p50/p95 time.
A line without "expected" is reported and skipped. It runs on rlm batch's runner: the same
--concurrency, --max-batch-cost and rerun-to-resume.

Scoring:
      --scorer <name>          exact (default: equal after trimming, case and a final period),
                               contains, number (the answer's last number), f1 (token overlap),
                               regex ("expected" is a pattern or /pattern/flags), json (equal
                               JSON), judge (an LLM grades by a rubric), or ./my-scorer.mjs (its
                               default export (input) => number | boolean | {score, note}; types:
                               ScorerFunction from @rlm/eval)
      --tolerance <x|x%>       number: absolute or relative tolerance (default: exact)
      --json-match <mode>      json: equal (default) or subset (the answer may hold more keys)
      --judge-model <p:id>     judge: the model that grades (default --model); its cost is
                               counted apart
      --judge-rubric <text>    judge: how to grade (or @file); default: same facts as expected
      --scorer-timeout <time>  a module's time per item (default ${defaultScorerTimeoutMs / 1000}s); past it the item is
                               marked, not scored, and the eval goes on

Comparing:
      --variant name=flags     a way to run, repeatable: run flags on top of the command's,
                               e.g. --variant "i30=--max-iterations 30" --variant
                               "haiku=--sub-model anthropic:claude-haiku-4-5" (default: one
                               variant, rlm)
      --baseline direct        also ask --model directly with the whole context in its prompt;
                               a context larger than its window is not sent: "did not fit",
                               scored 0
      --baseline-window <n>    that model's input window in tokens (e.g. 128k) when rlm does not
                               know it

Output:
  -o, --out <file>             one JSON line per item and variant, appended as each ends: id,
                               variant, answer, expected, score (0 to 1, null when the scorer
                               failed), cost, tokens, time, steps, sub-calls, runId; rerunning
                               the same command skips what is there and retries failed runs
      --report <file>          a self-contained HTML report (charts, items where variants
                               disagree, each linked to its run's trace written beside it)
      --confidence <level>     of the intervals (default 0.95): Wilson for 0/1 scores,
                               Student's t otherwise
      --concurrency <n>        items run at once (default ${defaultBatchConcurrency})
      --context-root <dir>     where an item's context and context_dir must lie, symbolic
                               links resolved (default: the dataset's directory); an item
                               naming anything else fails saying why
      --max-batch-cost <usd>   once the runs have spent this, no item starts (the judge apart)

Workers:
      --queue <url>            put the runs on this Redis server's queue: rlm worker --queue
                               <url> processes run them, each with its variant's models and
                               limits (no base URL: the workers' own), bounded by the worker's
                               own limits; the baseline too. Scoring, the judge included, stays
                               here; this process needs no key but the judge's
      --stall-timeout <time>   with --queue: stop waiting, saying why, once no worker has made
                               progress for this long (default ${defaultStallTimeoutMs / 60_000}m); a rerun collects the rest

Every run flag (--model, --sub-model, --max-iterations, --context, --store, ...) applies to each
variant. Exit codes: 0 done, 1 some runs failed, lines were skipped or items not run, 2 usage
error, 130 interrupted, 143 terminated.
`;
