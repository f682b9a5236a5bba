export { AbortedError } from './aborted-error.js';
export { type BudgetKind, BudgetExhaustedError } from './budget-exhausted-error.js';
export { CheckpointCorruptError } from './checkpoint-corrupt-error.js';
export {
  ModelCallError,
  type ModelCallErrorReason,
  type ModelCallSetting,
} from './model-call-error.js';
export { type NoFinalAnswerDiagnostics, NoFinalAnswerError } from './no-final-answer-error.js';
export { RlmError } from './rlm-error.js';
export { SandboxError } from './sandbox-error.js';
export { ModelPriceError } from './model-price-error.js';
export { SnapshotPreemptedError } from './snapshot-preempted-error.js';
export { ConfigurationError } from './configuration-error.js';
