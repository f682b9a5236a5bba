import { type Scorer, scoreRun } from '@rlm/eval';
import type { BatchResult } from '../../jobs/run-batch-query.js';
import { asWrittenWithRoundedCosts } from '../../output/round-costs.js';
import type { BatchOutput } from '../batch/batch-output.js';
import type { BatchOutcome } from '../batch/run-batch-jobs.js';
import type { EvalJob, JobRun } from './eval-job.js';
import type { EvalResultLines } from './eval-result-lines.js';

/**
 * Scores each result as it comes, the line written being the scored one (kept in `results`);
 * passes on the other outcomes. `runOf` tells how the job's run went.
 */
export async function* scoreEvalOutcomes(
  outcomes: AsyncGenerator<BatchOutcome, void, undefined>,
  scorer: Scorer,
  runOf: (job: EvalJob, result: BatchResult) => JobRun,
  output: BatchOutput,
  results: EvalResultLines,
): AsyncGenerator<BatchOutcome, void, undefined> {
  const saidBounded = new Set<string>();
  for await (const outcome of outcomes) {
    if (outcome.kind !== 'result') {
      yield outcome;
      continue;
    }
    const job = outcome.job as EvalJob;
    const { run, contextChars, bounded = [] } = runOf(job, outcome.result);
    const said = `${job.variant} ${bounded.join(' ')}`;
    if (bounded.length > 0 && !saidBounded.has(said)) {
      saidBounded.add(said);
      output.line(
        `rlm: variant ${job.variant}: a worker ran it within its own lower limits (${bounded.join(', ')}), not the variant's; raise them on the workers to measure the variant as given`,
      );
    }
    // As the results file keeps it (costs rounded), so the report's figures are the file's.
    const line = asWrittenWithRoundedCosts(
      await scoreRun(job.item, run, { variant: job.variant, scorer, contextChars }),
    );
    if (line.scoreFailure) {
      output.line(`rlm: id ${job.id}: not scored: ${line.scoreFailure.message}`);
    }
    results.set(line);
    // The line written is the scored one; what did not fit counts as done, not failed.
    yield {
      kind: 'result',
      job,
      result: (line.didNotFit ? { ...line, answer: null } : line) as unknown as BatchResult,
    };
  }
}
