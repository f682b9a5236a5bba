import type { ArtifactStore, RLM, RlmEvent, RunUsage } from '@rlm/core';
import { cliVersion } from '../cli-version.js';
import { jsonFailureReport } from '../output/json-failure-report.js';
import type { ModelSpec } from '../run-options/run-options.js';
import type { BatchJobId } from './parse-batch-jobs.js';
import { createRunTracer } from '../rlm/record-run-trace.js';
import { runQuery } from '../rlm/run-query.js';
import type { RunTally } from '../rlm/run-tally.js';
import { toPrintableData } from '../output/to-printable-data.js';
import type { StoreFailure } from '../store/watch-store-failures.js';

/** A job's failed writes to the artifact store: how many, and the first. */
export interface JobStoreFailures {
  readonly count: number;
  readonly first: StoreFailure;
}

/**
 * One line of a batch's results: an answer or a failure, keyed by the job's id. `storeFailures`
 * is there when the store failed during the job (the answer stands; what the job stored may be
 * lost).
 */
export type BatchResult =
  | {
      readonly id: BatchJobId;
      /** The answer, as printable JSON data. */
      readonly answer: unknown;
      readonly usage: RunUsage;
      /** `usage.costUsd`, absent when no model call had a price. */
      readonly costUsd?: number;
      /** Wall time of the query, in milliseconds. */
      readonly durationMs: number;
      readonly storeFailures?: JobStoreFailures;
    }
  | {
      readonly id: BatchJobId;
      readonly error: { readonly name: string; readonly message: string };
      /** What the job spent before it failed. */
      readonly usage: RunUsage;
      readonly durationMs: number;
      readonly storeFailures?: JobStoreFailures;
    };

/** What {@link runBatchQuery} needs besides the RLM and the job. */
export interface BatchQueryOptions {
  /** The job's context; a rejection (a context that cannot load) fails the job. */
  readonly context: () => Promise<unknown> | unknown;
  readonly signal: AbortSignal;
  /** Sees every event, e.g. to count what running jobs have spent. */
  readonly tally: RunTally;
  /** Sees every event after the tally (a retry notice, ...). */
  readonly onEvent?: (event: RlmEvent) => void;
  /** Where the job's trace is kept (`rlm runs`), when there is a store. */
  readonly store: ArtifactStore | undefined;
  /** Continue from the job's checkpoint in `store`, if it has one. */
  readonly resume: boolean;
  /** Receives a line when the trace cannot be kept. */
  readonly report: (line: string) => void;
  /** Kept in the trace's metadata. */
  readonly model: ModelSpec;
  readonly subModel: ModelSpec | undefined;
}

/**
 * Runs one job of a batch and resolves to its result line, a failure included; `error` is the
 * run's error when it failed; `runId` names its trace when a store keeps it. Never rejects.
 */
export async function runBatchQuery(
  rlm: RLM,
  job: { readonly id: BatchJobId; readonly query: string },
  options: BatchQueryOptions,
): Promise<{
  readonly result: BatchResult;
  readonly error?: unknown;
  readonly runId: string | undefined;
}> {
  const tracer = createRunTracer({
    store: options.store,
    traceFile: undefined,
    report: options.report,
    announce: false,
    metadata: {
      cli: cliVersion,
      model: options.model,
      subModel: options.subModel,
      batchId: job.id,
    },
  });
  const runId = options.store === undefined ? undefined : tracer.runId;
  try {
    const context = await options.context();
    const report = await runQuery(rlm, job.query, context, {
      signal: options.signal,
      onEvent: (event: RlmEvent) => {
        options.tally.observe(event);
        tracer.record(event);
        options.onEvent?.(event);
      },
      resume: options.resume,
    });
    await tracer.finish();
    return {
      runId,
      result: {
        id: job.id,
        answer: toPrintableData(report.answer),
        usage: report.usage,
        ...(report.usage.costUsd === undefined ? {} : { costUsd: report.usage.costUsd }),
        durationMs: report.durationMs,
      },
    };
  } catch (error) {
    await tracer.finish(error);
    const failure = jsonFailureReport(error, { spent: options.tally.snapshot() });
    return {
      runId,
      result: {
        id: job.id,
        error: { name: failure.error.name, message: failure.error.message },
        usage: failure.usage,
        durationMs: failure.durationMs,
      },
      error,
    };
  }
}
