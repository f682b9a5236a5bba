export * from './errors/index.js';
export { type EvalItem, type EvalItemContext, type EvalItemId, evalItemKey } from './eval-item.js';
export {
  type EvalDataset,
  type EvalLineProblem,
  parseEvalDataset,
} from './parse-eval-dataset.js';
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
