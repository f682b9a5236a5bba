export {
  createScriptedModel,
  type ScriptedModel,
  type ScriptedModelSettings,
  type ScriptedReply,
  type ScriptedStep,
} from './scripted-model.js';
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
export {
  cpuMsSince,
  measureSlowdown,
  type ScaledTiming,
  sleepScaled,
  timeScaled,
} from './measure-slowdown.js';
export { waitUntil } from './wait-until.js';
export { writeEndlessly } from './write-endlessly.js';
