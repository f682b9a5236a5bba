import { defaultModelPrices, findModelPrice, formatErrorLine, type LanguageModel } from '@rlm/core';
import {
  createBuiltInScorer,
  createJudgeScorer,
  loadScorerModule,
  type Scorer,
  ScorerModuleError,
} from '@rlm/eval';
import { UsageError } from '../../usage-error.js';
import type { EvalOptions } from './parse-eval-arguments.js';
import { readJudgeRubric } from './read-judge-rubric.js';

/**
 * The scorer `--scorer` names: a built-in one, the judge on `judgeModel`, or a module's (a usage
 * error when it does not load or has not the scorer's shape).
 */
export async function createEvalScorer(
  options: EvalOptions,
  judgeModel: LanguageModel | undefined,
): Promise<Scorer> {
  const choice = options.scorer;
  if (choice.kind === 'built-in') {
    return createBuiltInScorer(choice.name, {
      ...(options.tolerance === undefined ? {} : { tolerance: options.tolerance }),
      jsonMatch: options.jsonMatch,
    });
  }
  if (choice.kind === 'judge') {
    const base = options.batch.run;
    const rubric = await readJudgeRubric(options.judgeRubric);
    const price = findModelPrice(
      { ...defaultModelPrices, ...base.prices },
      options.judgeModel.modelId,
    );
    return createJudgeScorer({
      model: judgeModel!,
      ...(rubric === undefined ? {} : { rubric }),
      ...(price === undefined ? {} : { price }),
    });
  }
  try {
    return await loadScorerModule(choice.file, { timeoutMs: options.scorerTimeoutMs });
  } catch (error) {
    if (ScorerModuleError.isInstance(error)) {
      throw new UsageError(
        `${formatErrorLine(error)}; see rlm eval --help for the scorer's shape`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}

/** The scorer as the report names it. */
export function describeScorer(options: EvalOptions, scorer: Scorer): string {
  if (options.scorer.kind === 'judge')
    return `judge (${options.judgeModel.provider}:${options.judgeModel.modelId})`;
  return scorer.name;
}

/** Closes a scorer that holds something open (a module's worker), ignoring its failure. */
export async function closeScorer(scorer: Scorer | undefined): Promise<void> {
  const closable = scorer as { close?: () => Promise<void> } | undefined;
  await closable?.close?.().catch(() => {});
}
