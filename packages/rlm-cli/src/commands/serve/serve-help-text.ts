import { formatBytes } from '../../output/format-bytes.js';
import {
  defaultMaxBodyBytes,
  defaultServeConcurrency,
  defaultServePort,
  defaultShutdownGraceMs,
} from './parse-serve-arguments.js';

/** The flags `rlm serve` and `rlm mcp --http` share, for their help texts. */
const serverFlags = `      --host <address>         listen on <address> (default 127.0.0.1: this machine only);
                               any other needs a bearer token
      --port <n>               the port (default ${defaultServePort}; 0 for any free port)
      --token <secret>         the bearer token every request must send (default
                               $RLM_SERVER_TOKEN; prefer the variable: flags show in ps)
      --max-body-bytes <n>     the largest request body, suffixes K, M, G (default
                               ${formatBytes(defaultMaxBodyBytes)}); larger ones get 413
      --shutdown-grace <time>  after SIGTERM or Ctrl-C, how long running requests may
                               finish before they are cut (default ${defaultShutdownGraceMs / 1000}s); a second signal
                               cuts them at once`;

/** Flags both commands take, about the runs. */
const runFlags = `      --concurrency <n>        runs at once; a request past it gets 429 (default ${defaultServeConcurrency})
      --serve-model <provider:id[+provider:id]>
                               serve this model too, as rlm:<provider:id>[+<sub>] (repeatable;
                               the first served model is --model with --sub-model)
      --any-model              serve any rlm:<provider>:<id>[+<provider>:<id>] a request names
                               (keys from the environment)
      --max-model-calls <n>, --max-cost <usd>, --max-wall-time <time>
                               the most one request may spend, and what it gets when it asks
                               for no limit (a request may ask for less, never more)
      --max-context-bytes <n>  the most one request may read under --context-root

Every other run flag applies to each run: --model, --sub-model, --base-url, --price,
--max-depth, --max-iterations, --sandbox, --tools, --store, --no-store, --quiet (no log
lines), ... (see rlm --help). Each run's trace is kept in the store: rlm runs lists them.`;

/** `rlm serve --help`. */
export function serveHelpText(): string {
  return `Usage: rlm serve [--host <address>] [--port <n>] [--context-root <dir>] [--mcp] [run flags]

Serves the RLM as an OpenAI-compatible API: POST /v1/chat/completions (streamed or not),
GET /v1/models, GET /health. Point any OpenAI client at http://127.0.0.1:${defaultServePort}/v1 with
the model "rlm" (or rlm:<provider>:<id>[+<provider>:<id>]). The last user message is the
question; earlier messages, text files sent as file parts, the "context" field and the
files named in "context_paths" (under --context-root) are the context, never the prompt.
One log line per request on stderr: id, model, status, outcome, tokens, cost, time, run.

${serverFlags}
      --context-root <dir>     requests may name files and directories under <dir> in
                               context_paths (default: none, requests send text)
      --mcp                    also serve MCP (the rlm_query tool) at /mcp
${runFlags}
`;
}

/** `rlm mcp --help`. */
export function mcpHelpText(): string {
  return `Usage: rlm mcp [--context-root <dir>] [run flags]
       rlm mcp --http [--host <address>] [--port <n>] [--context-root <dir>] [run flags]

A Model Context Protocol server over stdio (as MCP clients start it:
{"command": "npx", "args": ["rlm", "mcp"]}), or over streamable HTTP at /mcp with --http.
Its tool rlm_query takes a question and context as text or as paths under --context-root,
reports progress while it runs, and returns the answer and its cost. The runs kept in the
store are resources: rlm://runs and rlm://runs/<run-id> (the trace as JSON lines).
stdout carries only the protocol; the log goes to stderr.

      --context-root <dir>     the directory rlm_query may read paths under (default: the
                               working directory)
      --http                   serve over streamable HTTP instead of stdio
${serverFlags}
${runFlags}
`;
}
