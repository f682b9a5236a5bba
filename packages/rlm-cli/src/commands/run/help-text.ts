import { defaultAnthropicModelId } from '@rlm/anthropic/model-id';
import { defaultMaxConcurrency } from '@rlm/core';
import { formatBytes } from '../../output/format-bytes.js';
import {
  defaultMaxContextBytes,
  defaultMaxModelCalls,
  defaultMaxWallTimeMs,
  defaultStorePath,
} from '../../run-options/run-options.js';

/** The `rlm --help` text, newline included. */
export function helpText(): string {
  return `Usage: rlm [options] [query...]

Answers a query over a context far larger than the model's window: the model writes
JavaScript that runs in a sandbox where the context is the variable \`context\`.

  rlm "query" --context notes.txt     answer once, print the answer on stdout
  rlm --context-dir docs/             interactive: one query per line (prompt on stderr)
  cat queries | rlm -c data.json      one query per input line, answers in order

Context (optional; without one the model gets an empty context):
  -c, --context <file>         .json is parsed (a .json that does not parse, JSONC say,
                               is read as text, with a note); any other file is UTF-8 text
  -d, --context-dir <dir>      every file under <dir> (recursive, lexical order): an array
                               of { path, text } (path relative to <dir>; { path, data }
                               for a .json that parses); hidden files, node_modules, what
                               .gitignore ignores and binary files (counted) are skipped
      --concat                 with --context-dir: one string, each file introduced by
                               a line "==> relative/path <==", separated by a blank line
      --include <glob>         with --context-dir: only matching files (repeatable);
                               '*.md' matches at any depth, 'docs/**' from the top
      --exclude <glob>         with --context-dir: leave out matching files and
                               directories (repeatable)
      --no-gitignore           with --context-dir: read what .gitignore files ignore
      --no-default-excludes    with --context-dir: read hidden files and node_modules too
      --strict                 a binary file is an error, not skipped, and so is a .json
                               file that does not parse, not read as text
      --max-context-bytes <n>  size limit across files; suffixes K, M, G (binary), e.g. 1G
                               (default ${formatBytes(defaultMaxContextBytes)})

Model:
  -m, --model <provider:id>    root model: anthropic:<id>, openai:<id> (any OpenAI-compatible
                               server) or ollama:<id> (default $RLM_MODEL,
                               else anthropic:${defaultAnthropicModelId}); replay:<run.jsonl>
                               or replay:<run-id> answers with the responses a recorded
                               run got, request by request (no API, no key, no cost)
      --base-url <url>         API endpoint of --model, e.g. http://127.0.0.1:8000/v1 for vLLM
                               (default: $ANTHROPIC_BASE_URL or $OPENAI_BASE_URL, else the
                               provider's API; ollama: http://127.0.0.1:11434/v1)
      --sub-model <provider:id>
                               model for llm_query and the deepest sub_rlm, of any provider
                               (default --model)
      --sub-base-url <url>     API endpoint of --sub-model (default as for --base-url)
      --sub-models <id,id>     the models model code may choose per call, as in
                               llm_query(prompt, { model: "<id>" }) (default: any model of
                               the --sub-model provider; with --max-cost, priced ones)
      --max-depth <n>          levels of full RLMs, the root included (default 2)
      --max-iterations <n>     model responses per call before a forced answer (default 20)
      --max-errors <n>         code blocks in a row that may throw before the run stops with
                               its partial answer and the reason (default: no limit)
      --redaction-ratio <r>    output copying more than this share of the context verbatim
                               has the copies replaced by where they are; off: never
                               (default 0.25)
      --max-model-calls <n>    model calls per query, children and llm_query included
                               (default ${defaultMaxModelCalls})
      --max-tokens <n>         input + output tokens per query (default: no limit)
      --max-wall-time <time>   wall time per query: ms, or with a unit: 90s, 30m, 2h
                               (default ${defaultMaxWallTimeMs / 60_000}m)
      --exec-timeout <ms>      running time of one code block; waiting idle for llm_query
                               and sub_rlm does not count (up to 10 minutes in all)
                               (default 60000)
      --max-code-blocks <n>    code blocks run per model response; the model is told how
                               many others did not run (default 20)
      --max-concurrency <n>    model calls in flight at once, llm_query included; halved
                               while the API answers 429, raised again as calls succeed,
                               never above n (default ${defaultMaxConcurrency})
      --max-response-chars <n> characters of one model response sent back to it: head and
                               tail, the true length stated (default 20000)
      --request-timeout <ms>   time a model call may wait for its answer to start, and
                               for each silence in the streamed answer (default 60000)
      --max-retries <n>        retries of a model call after a 429, 5xx, timeout, dropped
                               connection or malformed body (default 2); each wait is shown
                               on stderr. Worst case with the defaults: about 3 minutes
      --max-retry-wait <ms>    longest retry-after wait honoured; an API asking for more
                               fails the call at once (default 60000)
      --max-response-bytes <n> most bytes of one model response read; past it the call is
                               cut and retried like a server fault; suffixes K, M, G
                               (default 8M)
      --no-stream              ask models for one answer body instead of a stream (for a
                               proxy or server that cannot stream); prose then shows at once
      --max-cost <usd>         budget in US dollars for the whole run; when it is spent the
                               best partial answer is printed (needs a price for each model)
      --price <model>=<in>,<out>[,<cache-read>,<cache-write>]
                               price of a model in US dollars per million tokens (repeatable;
                               cache prices default to the input price); the current Anthropic
                               and OpenAI models are built in

Storage and tools:
      --store <file>           SQLite artifact store: artifacts, checkpoints after every
                               step, large answers (default ${defaultStorePath}); or
                               redis://host:port, shared by processes on several machines
      --no-store               keep nothing on disk
      --max-artifact-bytes <n> bytes model code may store per query; suffixes K, M, G
                               (default 1G)
      --max-artifacts <n>      artifacts model code may store per query (default 10000)
      --store-errors <policy>  fail: a run during which the store failed exits 3 after
                               its answer; warn: only say so (default fail)
      --connect-timeout <time> how long reaching a Redis store or queue may take before
                               the command stops with one line, exit 2 (default 10s)
      --checkpoint-max-variable-bytes <n>
                               a variable larger than this serialised is named but not
                               saved in checkpoints (a warning says so); suffixes K, M, G
                               (default 256M)
      --checkpoint-max-lag <ms>
                               how old the newest checkpoint may grow while steps
                               preempt the snapshots after them; 0: every step waits
                               for its snapshot (default 30000)
      --resume                 continue the latest checkpoint of the same query and context
      --sandbox <name>         where model code runs: ses (SES in a worker thread) or
                               quickjs (QuickJS in WebAssembly) (default ses)
      --tools <module>         host tools: a module exporting \`tools\`, an array of
                               { name, description, inputSchema, execute }
      --toolstore <dir>        durable tools built by runs (default $RLM_TOOLSTORE, else
                               .rlm/tools beside --store; none with --no-store); user: the
                               per-user store every project shares; see rlm tools --help
      --no-tool-reads          never run persisted tool code (it is still written)
      --no-tool-repair         regenerate failing tool methods instead of repairing them
      --tool-generation-only   act as if there were no tool store

Output:
      --json                   one JSON object per query on stdout (or in --out):
                               { answer, iterations, depthReached, usage, durationMs },
                               or { error: { name, message }, usage, ... } on failure
  -o, --out <file>             write the answers to <file> instead of stdout: the first
                               replaces it, later queries' answers are appended
      --trace <file.html>      write the run's trace as one HTML file when the query ends
                               (failed runs too); every run's trace is also kept in the store
  -q, --quiet                  no progress on stderr
  -h, --help                   this text
  -v, --version                the version

Batch:       rlm batch <queries.jsonl> [--concurrency <n>] [-o <results.jsonl>] [--max-batch-cost <usd>]
                       [--queue redis://host:port]
                                          many queries at once, results as JSON lines; see rlm batch --help
             rlm worker --queue redis://host:port [--store redis://host:port]
                                          run the queued jobs, on any number of machines

Eval:        rlm eval <data.jsonl> [--scorer <name>] [--variant name=flags]... [--baseline direct]
                      [-o <results.jsonl>] [--report <report.html>]
                                          score answers, compare models and limits; see rlm eval --help
             rlm eval --generate sniah --lengths 8k,128k,1m --n 50
                                          write the paper's needle-in-a-haystack dataset

Serve:       rlm serve [--host <address>] [--port <n>] [--context-root <dir>] [--mcp]
                                          an OpenAI-compatible API (and MCP); see rlm serve --help
             rlm mcp [--http] [--context-root <dir>]
                                          an MCP server (stdio, or HTTP); see rlm mcp --help

Runs:        rlm runs [--limit <n>] [--json] [--store <file>]     recent runs and their totals
             rlm trace [--last | <run-id> | <run.jsonl>] [-o <file>] [--jsonl] [--store <file>]
                                          a run's trace as HTML (or JSON lines); see rlm trace --help

Maintenance: rlm store gc (reclaim what failed or killed writes left in the store)
             rlm tools list | stale | prune [--dry-run] | restore <role> [archive-id] |
             quarantine <role.method> | bless <role.method> [--reset-metrics] |
             show <role[.method]>; see rlm tools --help

Environment: ANTHROPIC_API_KEY (for anthropic:), ANTHROPIC_BASE_URL, OPENAI_API_KEY (for openai:
             on the OpenAI API), OPENAI_BASE_URL, RLM_MODEL, RLM_TOOLSTORE, NO_COLOR.
Exit codes: 0 answered, 1 the run failed, 2 bad usage or context, or the run is being run
by another process, 3 answered but the store failed, 130 interrupted, 143 terminated.
`;
}
