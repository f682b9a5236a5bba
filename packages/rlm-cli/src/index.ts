export { cliVersion } from './cli-version.js';
export { ContextLoadError } from './context-load-error.js';
export { describeRunError, type RunFailure } from './describe-run-error.js';
export { formatAnswer, formatJsonReport, type JsonRunReport } from './format-answer.js';
export {
  formatJsonFailure,
  type JsonFailureReport,
  jsonFailureReport,
} from './json-failure-report.js';
export { type LoadContextOptions, type LoadedContext, loadContext } from './load-context.js';
export {
  type CliCommand,
  type CliOptions,
  defaultMaxContextBytes,
  type ModelSpec,
  parseArguments,
  parseModelSpec,
} from './parse-arguments.js';
export { formatDuration, formatRunsTable } from './format-runs-table.js';
export {
  type BatchJob,
  type BatchJobId,
  type BatchLineProblem,
  batchIdKey,
  parseBatchJobs,
} from './parse-batch-jobs.js';
export { type QueuedBatchOptions, queueBatchJobs } from './queue-batch-jobs.js';
export { type BatchJobsOptions, type BatchOutcome, runBatchJobs } from './run-batch-jobs.js';
export type { BatchResult, JobStoreFailures } from './run-batch-query.js';
export type { StoreFailure } from './watch-store-failures.js';
export { createEventRenderer, type EventRendererOptions } from './render-events.js';
export { createRunTracer, type RunTracer, type RunTracerOptions } from './record-run-trace.js';
export { type CliInput, type CliOutput, type RunCliOptions, runCli } from './run-cli.js';
export { runQuery } from './run-query.js';
export { type RunsCommandOutput, runRunsCommand } from './run-runs-command.js';
export { type TraceCommandOutput, runTraceCommand } from './run-trace-command.js';
export { UsageError } from './usage-error.js';
