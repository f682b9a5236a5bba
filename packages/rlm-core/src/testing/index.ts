export {
  createScriptedModel,
  type ScriptedModel,
  type ScriptedModelSettings,
  type ScriptedReply,
  type ScriptedStep,
} from './scripted-model.js';
export {
  type ConformanceAssertion,
  type ConformanceTestApi,
  runSandboxConformance,
  type SandboxConformanceOptions,
} from './sandbox-conformance.js';
export {
  runSandboxSecuritySuite,
  type SandboxSecuritySuiteOptions,
} from './sandbox-security-suite.js';
export {
  type ModelConformanceHarness,
  type ModelConformanceServer,
  type ModelConformanceUsage,
  runModelConformance,
} from './model-conformance.js';
