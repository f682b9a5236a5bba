import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ArtifactStore, RlmEvent } from '@rlm/core';
import { createTraceRecorder, renderTraceHtml, saveTrace } from '@rlm/trace';
import { formatBytes } from '../output/format-bytes.js';

/** What {@link createRunTracer} needs. */
export interface RunTracerOptions {
  /** Where traces are kept; `undefined` with `--no-store` (the trace then lives in memory). */
  readonly store: ArtifactStore | undefined;
  /** `--trace`: the HTML file written when the run ends. */
  readonly traceFile: string | undefined;
  /** Receives one line per file written and per failure to keep the trace. */
  readonly report: (line: string) => void;
  /**
   * Whether to report where the trace went (the stored run, the `--trace` file); failures to
   * keep it are reported either way.
   */
  readonly announce: boolean;
  /** Kept in the trace's metadata. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** Records one query's trace; `finish` keeps it. */
export interface RunTracer {
  /** The run's id: its trace is kept under it in the store (`rlm trace <runId>`). */
  readonly runId: string;
  readonly record: (event: RlmEvent) => void;
  /**
   * Ends the trace (failed with `error` when given), saves it in the store and writes the
   * `--trace` file. Never rejects: a failure to keep the trace is reported, not thrown, so
   * that it cannot change the query's outcome.
   */
  readonly finish: (error?: unknown) => Promise<void>;
}

/** A tracer for one query of the CLI. */
export function createRunTracer(options: RunTracerOptions): RunTracer {
  const recorder = createTraceRecorder({ metadata: options.metadata });
  return {
    runId: recorder.runId,
    record: (event) => recorder.record(event),
    async finish(error) {
      const trace = recorder.finish(error);
      if (options.store) {
        try {
          await saveTrace(options.store, trace);
          if (options.announce) {
            options.report(`rlm: trace kept as run ${trace.runId} (rlm trace ${trace.runId})`);
          }
        } catch (cause) {
          options.report(`rlm: could not keep the trace in the store: ${describe(cause)}`);
        }
      }
      if (options.traceFile !== undefined) {
        try {
          const html = renderTraceHtml(trace);
          await mkdir(path.dirname(path.resolve(options.traceFile)), { recursive: true });
          await writeFile(options.traceFile, html);
          if (options.announce) {
            options.report(
              `rlm: trace written to ${options.traceFile} (${formatBytes(Buffer.byteLength(html))})`,
            );
          }
        } catch (cause) {
          options.report(
            `rlm: could not write the trace to ${options.traceFile}: ${describe(cause)}`,
          );
        }
      }
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
