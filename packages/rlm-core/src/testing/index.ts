export {
  createScriptedModel,
  type ScriptedModel,
  type ScriptedModelSettings,
  type ScriptedReply,
  type ScriptedStep,
} from './scripted-model.js';
export {
  type FakeMessagesHandler,
  type FakeMessagesRequest,
  type FakeMessagesServer,
  type FakeMessagesServerOptions,
  type FakeRecordedRequest,
  startFakeMessagesServer,
} from './fake-messages-server.js';
export {
  type FakeBodyDelivery,
  type FakeContentBlock,
  type FakeDroppedConnectionReply,
  type FakeErrorOptions,
  type FakeErrorReply,
  type FakeMessageOptions,
  type FakeHangReply,
  type FakeMessageReply,
  type FakeRawOptions,
  type FakeRawReply,
  type FakeReply,
  type FakeReplyTiming,
  type FakeStopReason,
  type FakeToolUseOptions,
  fakeDelay,
  fakeDroppedConnection,
  fakeError,
  fakeHang,
  fakeMessage,
  fakeRaw,
  fakeText,
  fakeToolUse,
  fakeTruncatedToolUse,
} from './fake-messages-server-replies.js';
export { findMessagesRequestViolation } from './fake-messages-server-validation.js';
export {
  type FakeCacheUsage,
  FakePromptCache,
  type FakePromptCacheOptions,
} from './fake-prompt-cache.js';
export type {
  ConformanceAssertion,
  ConformanceSuiteSettings,
  ConformanceTestApi,
} from './conformance-suite.js';
export { runSandboxConformance, type SandboxConformanceOptions } from './sandbox-conformance.js';
export {
  runSandboxSecuritySuite,
  type SandboxSecuritySuiteOptions,
} from './sandbox-security-suite.js';
export {
  type ModelConformanceOptions,
  type ModelConformanceServer,
  type ModelConformanceUsage,
  runModelConformance,
} from './model-conformance.js';
export { type CollectedEvents, collectEvents } from './collect-events.js';
export {
  createScriptedSandbox,
  type ScriptedExecution,
  type ScriptedHandler,
  type ScriptedResult,
  type ScriptedSandbox,
  type ScriptedSandboxFactory,
  type ScriptedSandboxScript,
  type ScriptedSandboxSettings,
  type ScriptedScope,
  type ScriptedVariables,
} from './scripted-sandbox.js';
