export { type HealthAssessment, type HealthStatus, assessHealth } from './assess-health.js';
export { assertToolName, isToolName, toolNamePattern } from './assert-tool-name.js';
export { atomicWriteFile } from './atomic-write-file.js';
export { canonicalJson } from './canonical-json.js';
export { classifyFailure, type FailureClass, type FailureInfo } from './classify-failure.js';
export { codeChecksum } from './code-checksum.js';
export { contractFingerprint } from './contract-fingerprint.js';
export {
  decideSelection,
  type GenerateReason,
  type RepairReason,
  type Selection,
  type SelectionContext,
} from './decide-selection.js';
export { defaultToolStoreRoot, type ToolStoreRootOptions } from './default-tool-store-root.js';
export * from './errors/index.js';
export {
  defaultPruneAfterDays,
  type InspectToolsOptions,
  inspectTools,
  type MethodReport,
  type ToolReport,
} from './inspect-tools.js';
export { isRuntimeCompatible } from './is-runtime-compatible.js';
export { knownToolsOf } from './known-tools-of.js';
export type { JsonValue } from './json-value.js';
export type { ArtifactLoad, GenerationRecord, MethodArtifact } from './method-artifact.js';
export {
  type GenerationKind,
  type GenerationTrigger,
  keptGenerations,
  type NewGeneration,
} from './next-generation.js';
export { type OutcomeCounts, successRate } from './outcome-counts.js';
export { type PruneResult, type PruneToolsOptions, pruneTools } from './prune-tools.js';
export {
  defaultRecencyHalfLifeDays,
  type RankedTool,
  type RankToolsOptions,
  rankTools,
} from './rank-tools.js';
export type { Registry, ToolRecord } from './registry.js';
export {
  type RunToolsCommandOptions,
  runToolsCommand,
  type ToolsCommandOutput,
  toolsHelpText,
} from './run-tools-command.js';
export { toolStoreSchemaVersion } from './schema-version.js';
export type { ProgramSource, ToolCallOutcome } from './tool-call-outcome.js';
export type { ToolContract } from './tool-contract.js';
export { type ArchivedTool, createToolStore, ToolStore } from './tool-store.js';
export type {
  ToolCallEvent,
  ToolMaintenanceEvent,
  ToolQuarantineEvent,
  ToolStoreEvent,
} from './tool-store-event.js';
export {
  defaultToolStorePolicy,
  type ToolRuntime,
  type ToolStorePolicy,
  type ToolStoreSettings,
  type ToolStoreSwitches,
} from './tool-store-settings.js';
export {
  defaultFileLockOptions,
  type FileLockOptions,
  withFileLock,
} from './with-file-lock.js';
