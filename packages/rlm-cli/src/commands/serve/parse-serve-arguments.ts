import { formatServedModelId } from '@rlm/server';
import { isLoopbackHost } from '@rlm/server';
import type { CliOptions, ModelSpec } from '../../run-options/run-options.js';
import {
  optionalInteger,
  parseByteCount,
  parseDuration,
} from '../../run-options/parse-flag-values.js';
import { parseRunOptions } from '../../run-options/parse-run-options.js';
import { parseModelSpec } from '../../run-options/parse-model-spec.js';
import { UsageError } from '../../usage-error.js';
import { splitOwnFlags } from './split-own-flags.js';

/** A model `rlm serve` serves: its id and the root and sub-model specs it names. */
export interface ServedModelSpec {
  /** `rlm:<provider>:<model-id>[+<provider>:<model-id>]` */
  readonly id: string;
  readonly root: ModelSpec;
  readonly sub: ModelSpec | undefined;
}

/** What `rlm serve` and `rlm mcp` run, and how. */
export interface ServeOptions {
  /** `--host`: the address listened on (default 127.0.0.1). */
  readonly host: string;
  /** `--port` (default {@link defaultServePort}; 0 for any free port). */
  readonly port: number;
  /** `--token`, else `RLM_SERVER_TOKEN`; required for a host other than loopback. */
  readonly token: string | undefined;
  /** `--concurrency`: runs at once; more requests are answered 429 (default 4). */
  readonly concurrency: number;
  /**
   * `--context-root`: the directory requests may name files under; `rlm mcp` defaults to the
   * working directory, `rlm serve` to none (requests then name no files).
   */
  readonly contextRoot: string | undefined;
  /** `--max-body-bytes`: the largest request body (default 64 MiB). */
  readonly maxBodyBytes: number;
  /** `--shutdown-grace`: how long running requests may finish after SIGTERM (default 30 s). */
  readonly shutdownGraceMs: number;
  /** The default model (from `--model`/`--sub-model`) first, then each `--serve-model`. */
  readonly models: readonly ServedModelSpec[];
  /** `--any-model`: also serve any `rlm:<provider>:<id>[+...]` a request names. */
  readonly anyModel: boolean;
  /** `rlm serve --mcp`: also MCP at `/mcp`; `rlm mcp --http`: MCP over HTTP instead of stdio. */
  readonly mcp: boolean;
  /**
   * The run flags: models, the maxima per request (`--max-model-calls`, `--max-cost`,
   * `--max-wall-time`), `--max-context-bytes` for the context root, store, sandbox, tools.
   */
  readonly run: CliOptions;
}

/** `rlm serve`'s and `rlm mcp`'s command lines. */
export type ServeCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'serve'; readonly options: ServeOptions };

/** The port `rlm serve` listens on unless told otherwise. */
export const defaultServePort = 8765;

/** Runs at once unless `--concurrency` says otherwise. */
export const defaultServeConcurrency = 4;

/** The largest request body unless `--max-body-bytes` says otherwise: 64 MiB. */
export const defaultMaxBodyBytes = 64 * 1024 * 1024;

/** How long running requests may finish after SIGTERM unless `--shutdown-grace` says otherwise. */
export const defaultShutdownGraceMs = 30_000;

const contextFlagReason = 'requests bring their context; name files with --context-root <dir>';

/** Run flags that mean nothing for a server. */
const refusedFlags: ReadonlyMap<string, string> = new Map([
  ['--context', contextFlagReason],
  ['-c', contextFlagReason],
  ['--context-dir', contextFlagReason],
  ['-d', contextFlagReason],
  ['--concat', contextFlagReason],
  ['--include', contextFlagReason],
  ['--exclude', contextFlagReason],
  ['--no-gitignore', contextFlagReason],
  ['--no-default-excludes', contextFlagReason],
  ['--strict', contextFlagReason],
  ['--json', 'answers go to the clients in their protocol'],
  ['--out', 'answers go to the clients in their protocol'],
  ['-o', 'answers go to the clients in their protocol'],
  ['--resume', 'each request is a run of its own'],
  ['--trace', 'traces are kept in the store: list them with rlm runs'],
  ['--store-errors', 'a store failure is logged and the answer still sent'],
  ['--max-tokens', 'limit requests by --max-model-calls, --max-cost and --max-wall-time'],
]);

/**
 * Parses the words after `rlm serve` (or `rlm mcp` when `command` is `mcp`): the server's own
 * flags and every run flag that applies. Throws a {@link UsageError} with one line for anything
 * malformed, before any file is read or any model is called.
 */
export function parseServeArguments(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  command: 'serve' | 'mcp',
): ServeCommand {
  const transportSwitch = command === 'serve' ? '--mcp' : '--http';
  const { values, switches, rest } = splitOwnFlags(argv, {
    command: `rlm ${command}`,
    valued: [
      '--host',
      '--port',
      '--token',
      '--concurrency',
      '--context-root',
      '--max-body-bytes',
      '--shutdown-grace',
      '--serve-model',
    ],
    switches: [transportSwitch, '--any-model'],
    refused: refusedFlags,
  });
  const parsed = parseRunOptions(rest, env);
  if (parsed.kind === 'help') return { kind: 'help' };
  if (parsed.kind !== 'run' || parsed.options.query !== undefined) {
    throw new UsageError(`rlm ${command} takes no query: questions come from its clients`);
  }
  const run = parsed.options;
  const last = (flag: string) => values.get(flag)?.at(-1);
  const host = last('--host') ?? '127.0.0.1';
  const token = last('--token') ?? nonEmpty(env.RLM_SERVER_TOKEN);
  if (token !== undefined && token.trim() === '') throw new UsageError('--token is empty');
  const http = command === 'serve' || switches.has('--http');
  if (http && !isLoopbackHost(host) && token === undefined) {
    throw new UsageError(
      `--host ${host} lets other machines in, so requests need a bearer token: set RLM_SERVER_TOKEN=<a long random string> (or pass --token), or listen on 127.0.0.1`,
    );
  }
  if (!http) {
    const httpOnly = ['--host', '--port', '--token', '--max-body-bytes', '--shutdown-grace'].find(
      (flag) => values.has(flag),
    );
    if (httpOnly)
      throw new UsageError(`${httpOnly} applies to rlm mcp --http; add --http or drop it`);
  }
  const port = last('--port') === undefined ? defaultServePort : parsePort(last('--port')!);
  const defaultModel = servedModelSpec(run.model, run.subModel);
  const models = [defaultModel];
  for (const text of values.get('--serve-model') ?? []) {
    const spec = parseServedModel(text);
    if (!models.some((model) => model.id === spec.id)) models.push(spec);
  }
  return {
    kind: 'serve',
    options: {
      host,
      port,
      token,
      concurrency:
        optionalInteger(last('--concurrency'), '--concurrency') ?? defaultServeConcurrency,
      contextRoot: last('--context-root') ?? (command === 'mcp' ? '.' : undefined),
      maxBodyBytes:
        last('--max-body-bytes') === undefined
          ? defaultMaxBodyBytes
          : parseByteCount(last('--max-body-bytes')!, '--max-body-bytes'),
      shutdownGraceMs:
        last('--shutdown-grace') === undefined
          ? defaultShutdownGraceMs
          : parseDuration(last('--shutdown-grace')!, '--shutdown-grace'),
      models,
      anyModel: switches.has('--any-model'),
      mcp: switches.has(transportSwitch),
      run,
    },
  };
}

/**
 * `<provider>:<id>[+<provider>:<id>]`, with or without the `rlm:` of a served id
 * (`rlm:anthropic:claude-haiku-4-5+ollama:qwen3:8b`).
 */
export function parseServedModel(text: string, flag = '--serve-model'): ServedModelSpec {
  const parts = text.trim().replace(/^rlm:/, '').split('+');
  if (parts.length > 2 || parts.some((part) => part === '')) {
    throw new UsageError(
      `${flag} must look like <provider>:<model-id>[+<provider>:<model-id>] (got ${JSON.stringify(text)})`,
    );
  }
  const root = parseModelSpec(parts[0]!, flag);
  const sub = parts[1] === undefined ? undefined : parseModelSpec(parts[1], flag);
  return servedModelSpec(root, sub);
}

function servedModelSpec(root: ModelSpec, sub: ModelSpec | undefined): ServedModelSpec {
  return {
    id: formatServedModelId(
      `${root.provider}:${root.modelId}`,
      sub && `${sub.provider}:${sub.modelId}`,
    ),
    root,
    sub,
  };
}

function parsePort(text: string): number {
  const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(port) || port > 65_535) {
    throw new UsageError(
      `--port needs a port number from 0 to 65535 (got ${JSON.stringify(text)})`,
    );
  }
  return port;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
