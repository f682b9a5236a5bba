export * from './errors/index.js';
export { type EvalItem, type EvalItemContext, type EvalItemId, evalItemKey } from './eval-item.js';
export {
  type EvalDataset,
  type EvalLineProblem,
  parseEvalDataset,
} from './parse-eval-dataset.js';
export { type JsonObjectLine, readJsonObjectLines } from './read-json-object-lines.js';
export {
  type BuiltInScorerName,
  type BuiltInScorerSettings,
  builtInScorerNames,
  createBuiltInScorer,
  isBuiltInScorerName,
} from './scorers/built-in-scorers.js';
export {
  createJudgeScorer,
  defaultJudgeRubric,
  type JudgeScorerSettings,
  readJudgeVerdict,
} from './scorers/judge-scorer.js';
export {
  loadScorerModule,
  type ModuleScorer,
  type ScorerModuleSettings,
} from './scorers/load-scorer-module.js';
export {
  defaultNumberTolerance,
  type NumberTolerance,
  parseNumberTolerance,
} from './scorers/number-tolerance.js';
export {
  defineScorer,
  type JudgeSpend,
  type ScoreFailure,
  type ScoreInput,
  type ScoreOutcome,
  type Scorer,
  type ScorerFunction,
  type ScoreValue,
} from './scorers/scorer.js';
export {
  type EvalResult,
  type EvalRun,
  evalResultKey,
  type RunFacts,
  totalTokens,
} from './results/eval-result.js';
export { formatEvalSummary, formatUsd } from './results/format-eval-summary.js';
export { type EvalResultsFile, readEvalResults } from './results/read-eval-results.js';
export { type ScoreRunOptions, scoreRun } from './results/score-run.js';
export {
  type EvalSummary,
  summarizeEval,
  type VariantSummary,
} from './results/summarize-eval.js';
export { percentile } from './statistics/percentile.js';
export { normalQuantile, studentTQuantile } from './statistics/quantiles.js';
export { type ScoreInterval, scoreInterval, wilsonInterval } from './statistics/score-interval.js';
export { defaultContextWindows, findContextWindow } from './baseline/context-windows.js';
export {
  charactersPerToken,
  contextAsText,
  type DirectBaselineSettings,
  directBaselineSystem,
  runDirectBaseline,
} from './baseline/run-direct-baseline.js';
export {
  formatTokenLength,
  generateSniah,
  parseTokenLengths,
  type SniahItem,
  type SniahSettings,
  sniahCharactersPerToken,
} from './sniah/generate-sniah.js';
export { type WrittenSniahDataset, writeSniahDataset } from './sniah/write-sniah-dataset.js';
export {
  type Disagreement,
  findDisagreements,
  type ReportChartData,
  reportChartData,
} from './report/report-data.js';
export { type EvalReportSettings, renderEvalReport } from './report/render-eval-report.js';
