import { formatErrorLine } from '@rlm/core';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  loadTrace,
  renderTraceHtml,
  TraceCorruptError,
  type TraceDocument,
  TraceNotFoundError,
  traceFromJsonLines,
  traceToJsonLines,
} from '@rlm/trace';
import { formatBytes } from '../../output/format-bytes.js';
import { openExistingStore } from '../../store/open-existing-store.js';
import { defaultStorePath } from '../../run-options/run-options.js';
import { parseCommandArguments } from '../../parse-command-arguments.js';
import type { RunsCommandOutput } from '../runs/run-runs-command.js';
import { UsageError } from '../../usage-error.js';

const traceHelp = `Usage: rlm trace [--last | <run-id> | <run.jsonl>] [-o <file>] [--jsonl] [--store <file>]

Writes a run's trace (rlm runs lists them; --last, the default, is the newest), or the trace
a JSON-lines file holds (rlm trace --jsonl wrote it; examples/incidents-run.jsonl is one):

  (default)            one self-contained HTML file, trace-<run-id>.html unless -o says
                       otherwise: the call tree, where the time went, tokens and cost per
                       node, highlighted code, a search box. Opens from disk, no network.
      --jsonl          the trajectory as JSON lines on stdout (or in -o <file>); the
                       schema is in the README of @rlm/trace
  -o, --out <file>     where to write ("-" for stdout)
      --last           the newest run
      --store <file>   the SQLite store (default ${defaultStorePath})
`;

/** Where `rlm trace` writes: stdout for `-o -` and JSON lines, stderr for what it did. */
export interface TraceCommandOutput extends RunsCommandOutput {
  readonly stderr: NodeJS.WritableStream;
}

/**
 * `rlm trace`: writes a stored run's trace as HTML or JSON lines. Resolves to the exit code
 * (0); rejects with `UsageError` for bad flags, a missing store or an unknown run, and with
 * the store's or the file system's errors.
 */
export async function runTraceCommand(
  argv: readonly string[],
  output: TraceCommandOutput,
): Promise<number> {
  const { values, positionals } = parseCommandArguments(argv, {
    last: { type: 'boolean' },
    out: { type: 'string', short: 'o' },
    jsonl: { type: 'boolean' },
    store: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    output.stdout.write(traceHelp);
    return 0;
  }
  if (positionals.length > 1) {
    throw new UsageError(`rlm trace takes one run id (got ${positionals.length}); see rlm runs`);
  }
  const runId = positionals[0];
  if (runId !== undefined && values.last) {
    throw new UsageError('give a run id or --last, not both');
  }
  const trace =
    runId !== undefined && existsSync(runId)
      ? await readTraceFile(runId)
      : await readStoredTrace(values.store ?? defaultStorePath, runId);
  const text = values.jsonl ? traceToJsonLines(trace) : renderTraceHtml(trace);
  const target = values.out ?? (values.jsonl ? undefined : `trace-${trace.runId}.html`);
  if (target === undefined || target === '-') {
    output.stdout.write(text);
    return 0;
  }
  await mkdir(path.dirname(path.resolve(target)), { recursive: true });
  await writeFile(target, text);
  output.stderr.write(
    `rlm: trace written to ${target} (${formatBytes(Buffer.byteLength(text))})\n`,
  );
  return 0;
}

/** The trace of a stored run, the newest without `runId`. */
async function readStoredTrace(
  storePath: string,
  runId: string | undefined,
): Promise<TraceDocument> {
  const store = await openExistingStore(storePath);
  try {
    return await loadTrace(store, runId).catch((error: unknown) => {
      if (TraceNotFoundError.isInstance(error)) {
        throw new UsageError(formatErrorLine(error), { cause: error });
      }
      throw error;
    });
  } finally {
    await store.close();
  }
}

/** The trace a JSON-lines file holds. */
async function readTraceFile(file: string): Promise<TraceDocument> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`, {
      cause: error,
    });
  }
  try {
    return traceFromJsonLines(text);
  } catch (error) {
    if (!TraceCorruptError.isInstance(error)) throw error;
    throw new UsageError(`${file}: ${formatErrorLine(error)}`, {
      cause: error,
    });
  }
}
