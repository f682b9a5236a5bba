import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ArtifactStore } from '@rlm/core';
import {
  type EvalReportSettings,
  type EvalResult,
  findDisagreements,
  renderEvalReport,
} from '@rlm/eval';
import { loadTrace, renderTraceHtml } from '@rlm/trace';

/** What {@link writeEvalReport} wrote besides the report. */
export interface WrittenEvalReport {
  /** Trace files written. */
  readonly traces: number;
  /** Where they are: `<report name>-traces` beside the report. */
  readonly tracesDirectory: string;
}

/**
 * Writes the HTML report of `results` to `file`, and beside it, in `<name>-traces/`, the HTML
 * trace of every run the report links (each run of an item where variants disagree), read
 * from `store`: relative links, so that the report and its traces open offline, from disk,
 * and travel together. A run whose trace is not in the store gets no link.
 */
export async function writeEvalReport(
  file: string,
  results: readonly EvalResult[],
  options: { readonly store: ArtifactStore | undefined; readonly settings: EvalReportSettings },
): Promise<WrittenEvalReport> {
  const directory = path.dirname(path.resolve(file));
  const tracesName = `${path.basename(file, path.extname(file))}-traces`;
  const tracesDirectory = path.join(directory, tracesName);
  const linked = new Set<string>();
  const store = options.store;
  if (store !== undefined) {
    const runIds = findDisagreements(results).flatMap((row) =>
      [...row.results.values()].flatMap((result) =>
        result.runId !== undefined && /^[\w.-]+$/.test(result.runId) ? [result.runId] : [],
      ),
    );
    for (const runId of new Set(runIds)) {
      const trace = await loadTrace(store, runId).catch(() => undefined);
      if (trace === undefined) continue;
      await mkdir(tracesDirectory, { recursive: true });
      await writeFile(path.join(tracesDirectory, `${runId}.html`), renderTraceHtml(trace));
      linked.add(runId);
    }
  }
  const html = renderEvalReport(results, {
    ...options.settings,
    traceHref: (result) =>
      result.runId !== undefined && linked.has(result.runId)
        ? `${encodeURIComponent(tracesName)}/${result.runId}.html`
        : undefined,
  });
  await mkdir(directory, { recursive: true });
  await writeFile(file, html);
  return {
    traces: linked.size,
    tracesDirectory: path.relative(process.cwd(), tracesDirectory) || '.',
  };
}
