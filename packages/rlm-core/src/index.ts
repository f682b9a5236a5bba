export type * from './artifact-store.js';
export {
  boundToolContract,
  maxContractChars,
  maxContractStringChars,
  quoteToolContract,
  quoteUntrustedText,
  stripControlCharacters,
} from './features/durable-tools/bound-tool-contract.js';
export { createRLM } from './create-rlm.js';
export type {
  CurrentQueryHistory,
  HistoryEntry,
  HistoryStep,
  SessionCounts,
  SessionEvictions,
} from './features/session/session-memory.js';
export { defineTool } from './features/host-tools/define-tool.js';
export type {
  InferSchemaOutput,
  Schema,
  StandardSchemaPair,
  StandardSchemaWithJsonSchema,
} from './schema.js';
export type * from './durable-tool-store.js';
export * from './errors/index.js';
export { escapeControlCharacters } from './escape-control-characters.js';
export { formatErrorLine } from './format-error-line.js';
export { eventExcerpt } from './event-excerpt.js';
export { hashContext, updateWithText } from './hash-context.js';
export * from './normalize-conversation.js';
export { defaultQuotas } from './features/artifacts/artifact-quota.js';
export { renderArtifactCatalog } from './features/artifacts/render-artifact-catalog.js';
export {
  knownToolsPreamble,
  type RenderKnownToolsOptions,
  renderKnownTools,
} from './features/durable-tools/render-known-tools.js';
export { runKey } from './run-key.js';
export { AttemptTimeoutError } from './attempt-timeout-error.js';
export {
  describeAttempts,
  isRetryableStatus,
  type ModelFailureContext,
  refusedWaitError,
  responseTooLargeError,
  scrubModelCallError,
} from './model-failure-text.js';
export {
  defaultMaxResponseBytes,
  limitFetchResponses,
  limitResponseBytes,
  ResponseByteLimit,
} from './response-byte-limit.js';
export { keepAliveFetch } from './keep-alive-fetch.js';
export { ResponseTooLargeError } from './response-too-large-error.js';
export { scrubSecrets } from './scrub-secrets.js';
export { textSlices } from './text-slices.js';
export type * from './events.js';
export type * from './language-model.js';
export type * from './rlm-settings.js';
export type * from './run-usage.js';
export * from './sandbox.js';
export {
  formatVariables,
  type VariableSnapshot,
  VariableSpace,
  type VariableSyncOutcome,
} from './variable-space.js';
export { addModelCallUsage, emptyRunUsage } from './cost/call-usage-ledger.js';
export { bareModelId, defaultModelPrices, findModelPrice } from './cost/model-prices.js';
export { runPrices } from './cost/run-prices.js';
export { usageCostUsd } from './cost/usage-cost.js';
export { formatDuration } from './format-duration.js';
export {
  type RetriedModelCall,
  type RetryGiveUp,
  type RetryVerdict,
  retryModelCall,
} from './retry-model-call.js';
export { backoffDelayMs, readRetryAfterMs } from './retry-timing.js';
export { defaultMaxConcurrency } from './concurrency-gate.js';
export { Utf8Text } from './utf8-text.js';
export { isToolsRefusal } from './is-tools-refusal.js';
export type {
  CallEvent,
  CallOutcome,
  CallSetup,
  CallState,
  Feature,
  FeatureHostFunction,
  HostCall,
  ResumedStep,
  RunningCall,
  Workspace,
} from './features/feature.js';
