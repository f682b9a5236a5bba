export { cliVersion } from './cli-version.js';
export { ContextLoadError } from './context-load-error.js';
export { describeRunError, type RunFailure } from './output/describe-run-error.js';
export { formatAnswer, formatJsonReport, type JsonRunReport } from './output/format-answer.js';
export {
  formatJsonFailure,
  type JsonFailureReport,
  jsonFailureReport,
} from './output/json-failure-report.js';
export {
  type LoadContextOptions,
  type LoadedContext,
  loadContext,
} from './context/load-context.js';
export { type CliCommand, parseArguments } from './parse-arguments.js';
export { parseModelSpec } from './run-options/parse-model-spec.js';
export {
  type CliOptions,
  defaultMaxContextBytes,
  type ModelSpec,
} from './run-options/run-options.js';
export { formatDuration, formatRunsTable } from './output/format-runs-table.js';
export {
  type BatchJob,
  type BatchJobId,
  type BatchLineProblem,
  batchIdKey,
  parseBatchJobs,
} from './jobs/parse-batch-jobs.js';
export { type QueuedBatchOptions, queueBatchJobs } from './commands/batch/queue-batch-jobs.js';
export {
  type BatchJobsOptions,
  type BatchOutcome,
  runBatchJobs,
} from './commands/batch/run-batch-jobs.js';
export type { BatchResult, JobStoreFailures } from './jobs/run-batch-query.js';
export type { StoreFailure } from './store/watch-store-failures.js';
export { createEventRenderer, type EventRendererOptions } from './commands/run/render-events.js';
export { createRunTracer, type RunTracer, type RunTracerOptions } from './rlm/record-run-trace.js';
export type { CliInput, CliOutput, RunCliOptions } from './cli-io.js';
export { runCli } from './run-cli.js';
export { runQuery } from './rlm/run-query.js';
export { type RunsCommandOutput, runRunsCommand } from './commands/runs/run-runs-command.js';
export { type TraceCommandOutput, runTraceCommand } from './commands/trace/run-trace-command.js';
export { UsageError } from './usage-error.js';
