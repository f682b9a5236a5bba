export {
  ContextRoot,
  type ContextPathLoader,
  type ContextRootSettings,
  defaultContextMaxBytes,
  type LoadedContextPath,
  readContextTextFile,
} from './context-root.js';
export * from './errors/index.js';
export {
  createRlmHttpApp,
  defaultMaxBodyBytes,
  type RlmHttpApp,
  type RlmHttpAppSettings,
} from './http/create-rlm-http-app.js';
export { isLoopbackHost } from './http/is-loopback-host.js';
export {
  defaultServerPort,
  type RlmHttpServer,
  type RlmHttpServerSettings,
  startRlmHttpServer,
} from './http/start-rlm-http-server.js';
export { createRlmMcpServer, rlmQueryToolName } from './mcp/create-rlm-mcp-server.js';
export { type McpHttpSessionLimits, McpHttpSessions } from './mcp/mcp-http-sessions.js';
export { type McpStdioSession, serveMcpOverStdio } from './mcp/serve-mcp-over-stdio.js';
export {
  createRlmService,
  type RlmService,
  type RlmServiceSettings,
  type RunCatalog,
  type RunRecorder,
  type ServedAnswer,
  type ServedQuery,
  type ServedRlmSettings,
  type ServedRunInfo,
  type ServedRunSummary,
  type StartedRun,
} from './rlm-service.js';
export {
  checkRunLimits,
  defaultRunLimits,
  type RequestedRunLimits,
  type RunLimits,
} from './run-limits.js';
export type { ServedProgress } from './run-progress.js';
export type { ServedFile, ServedMessage } from './served-context.js';
export type { ServedModel } from './served-model.js';
export {
  type ResolvedServedModel,
  ServedModelCatalog,
  type ServedModelResolver,
} from './served-model-catalog.js';
export {
  defaultServedModelAlias,
  formatServedModelId,
  parseServedModelId,
  type ServedModelId,
} from './served-model-id.js';
export {
  formatServedRequestLog,
  type ServedOutcome,
  type ServedRequestLog,
} from './served-request-log.js';
