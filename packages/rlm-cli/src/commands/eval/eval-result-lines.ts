import { readFile } from 'node:fs/promises';
import {
  type EvalItem,
  type EvalResult,
  type EvalRun,
  evalResultKey,
  readEvalResults,
  type Scorer,
  scoreRun,
} from '@rlm/eval';
import { UsageError } from '../../usage-error.js';
import type { EvalJob } from './eval-job.js';

/**
 * The result lines of one `rlm eval`, the last per item and variant: those an earlier run of the
 * same command left in `--out`, then each one scored now. They tell which pairs still have to
 * run, and make the summary and the report.
 */
export class EvalResultLines {
  readonly #results = new Map<string, EvalResult>();

  /** Every line, the last per item and variant. */
  all(): EvalResult[] {
    return [...this.#results.values()];
  }

  /** Keeps `line` as its pair's latest. */
  set(line: EvalResult): void {
    this.#results.set(evalResultKey(line.id, line.variant), line);
  }

  /** Reads the lines an earlier run of the same command left in `--out`. */
  async readPrevious(file: string | undefined): Promise<void> {
    if (file === undefined) return;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new UsageError(`cannot read the results --out ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const read = readEvalResults(text);
    for (const line of read.results) this.set(line);
  }

  /**
   * Scores again the answers an earlier run kept but could not score (the scorer failed on
   * them), without running the items again.
   */
  async rescore(
    items: readonly EvalItem[],
    scorer: Scorer,
    append: (line: EvalResult) => void,
  ): Promise<void> {
    const byId = new Map(items.map((item) => [item.key, item]));
    for (const line of this.all()) {
      const item = byId.get(JSON.stringify(line.id));
      if (line.score !== null || line.answer === undefined || item === undefined) continue;
      const run: EvalRun = {
        kind: 'answered',
        answer: line.answer,
        usage: line.usage,
        durationMs: line.durationMs,
        steps: line.steps,
        subCalls: line.subCalls,
        ...(line.runId === undefined ? {} : { runId: line.runId }),
      };
      append(
        await scoreRun(item, run, {
          variant: line.variant,
          scorer,
          contextChars: line.contextChars,
        }),
      );
    }
  }

  /** Item by item, each variant: the pairs without a finished line. */
  pendingJobs(items: readonly EvalItem[], variants: readonly string[]): EvalJob[] {
    const jobs: EvalJob[] = [];
    for (const item of items) {
      for (const variant of variants) {
        const done = this.#results.get(evalResultKey(item.id, variant));
        if (done !== undefined && done.error === undefined) continue;
        jobs.push({
          // Shown in the progress lines and kept in the trace: the item's id and the variant.
          id: `${String(item.id)} (${variant})`,
          key: `${item.key} (${variant})`,
          query: item.query,
          contextFile: item.context?.kind === 'file' ? item.context.path : undefined,
          ...(item.context?.kind === 'directory' ? { contextDirectory: item.context.path } : {}),
          line: item.line,
          item,
          variant,
        });
      }
    }
    return jobs;
  }
}
