export {
  createReplayModel,
  type ReplayModel,
  type ReplayModelSettings,
  replayModelId,
} from './create-replay-model.js';
export { createRunId } from './create-run-id.js';
export {
  createTraceRecorder,
  type TraceRecorder,
  type TraceRecorderSettings,
} from './create-trace-recorder.js';
export * from './errors/index.js';
export {
  type ExpandedCallRequests,
  type ExpandedRequest,
  expandModelCalls,
} from './expand-model-calls.js';
export {
  answerExcerptChars,
  createTrace,
  findCall,
  finishTrace,
  reduceTrace,
} from './reduce-trace.js';
export { renderTraceHtml } from './render-trace-html.js';
export { type RunSummary, summarizeRun } from './run-summary.js';
export type * from './trace-document.js';
export { traceSchema } from './trace-document.js';
export { traceFromJsonLines, traceToJsonLines } from './trace-json-lines.js';
export { listRuns, loadTrace, saveTrace, traceScope } from './trace-store.js';
export { addModelCall, emptyUsage, totalTokens } from './trace-usage.js';
