import { emptyRunUsage, type RunUsage } from '@rlm/core';
import { describe, expect, test } from 'vitest';
import type { EvalItem } from '../eval-item.js';
import { createBuiltInScorer } from '../scorers/built-in-scorers.js';
import type { Scorer } from '../scorers/scorer.js';
import type { EvalResult, EvalRun } from './eval-result.js';
import { formatEvalSummary } from './format-eval-summary.js';
import { readEvalResults } from './read-eval-results.js';
import { scoreRun } from './score-run.js';
import { summarizeEval } from './summarize-eval.js';

const exact = createBuiltInScorer('exact');

function usage(tokens: number, costUsd?: number): RunUsage {
  const { costUsd: _none, ...base } = emptyRunUsage();
  return {
    ...base,
    inputTokens: tokens,
    outputTokens: 0,
    modelCalls: 1,
    ...(costUsd === undefined ? {} : { costUsd }),
  };
}

function item(id: number, expected: unknown = `a${id}`): EvalItem {
  return { id, key: String(id), query: `Q${id}?`, expected, line: id };
}

function answered(answer: unknown, durationMs: number, costUsd = 0.01): EvalRun {
  return {
    kind: 'answered',
    answer,
    usage: usage(100, costUsd),
    durationMs,
    steps: 3,
    subCalls: 2,
    runId: `run-${durationMs}`,
  };
}

describe('scoreRun', () => {
  test('an answer is scored; a failed run and a context that did not fit score 0 unasked', async () => {
    let asked = 0;
    const counting: Scorer = {
      name: 'exact',
      score: (input) => {
        asked++;
        return exact.score(input);
      },
    };
    const right = await scoreRun(item(1), answered('A1.', 1200), {
      variant: 'rlm',
      scorer: counting,
      contextChars: 5000,
    });
    expect(right).toEqual({
      id: 1,
      variant: 'rlm',
      query: 'Q1?',
      answer: 'A1.',
      expected: 'a1',
      score: 1,
      scorer: 'exact',
      usage: usage(100, 0.01),
      costUsd: 0.01,
      tokens: 100,
      durationMs: 1200,
      steps: 3,
      subCalls: 2,
      contextChars: 5000,
      runId: 'run-1200',
    });
    const failed = await scoreRun(
      item(2),
      {
        kind: 'failed',
        error: { name: 'NoFinalAnswerError', message: 'no answer' },
        usage: usage(50),
        durationMs: 10,
        steps: 30,
        subCalls: 0,
      },
      { variant: 'rlm', scorer: counting },
    );
    expect(failed).toMatchObject({ score: 0, error: { name: 'NoFinalAnswerError' }, steps: 30 });
    expect(failed).not.toHaveProperty('answer');
    const tooLong = await scoreRun(
      item(3),
      { kind: 'did-not-fit', estimatedTokens: 300_000, windowTokens: 200_000 },
      { variant: 'direct', scorer: counting },
    );
    expect(tooLong).toMatchObject({
      score: 0,
      didNotFit: { estimatedTokens: 300_000, windowTokens: 200_000 },
      tokens: 0,
      durationMs: 0,
    });
    expect(asked).toBe(1);
  });

  test('a scorer that rejects against its contract still marks only the item', async () => {
    const broken: Scorer = { name: 'broken', score: () => Promise.reject(new Error('boom')) };
    const result = await scoreRun(item(1), answered('x', 5), { variant: 'v', scorer: broken });
    expect(result.score).toBeNull();
    expect(result.scoreFailure).toEqual({ kind: 'threw', message: 'the scorer failed: boom' });
  });
});

describe('summarizeEval on a known set of answers', () => {
  async function knownResults(): Promise<EvalResult[]> {
    const results: EvalResult[] = [];
    // rlm: 8 of 10 right, times 100..1000 ms, $0.01 each.
    for (let id = 1; id <= 10; id++) {
      results.push(
        await scoreRun(item(id), answered(id <= 8 ? `a${id}` : 'wrong', id * 100), {
          variant: 'rlm',
          scorer: exact,
        }),
      );
    }
    // direct: 3 right, 2 wrong, 5 did not fit; $0.002 each sent.
    for (let id = 1; id <= 10; id++) {
      const run: EvalRun =
        id > 5
          ? { kind: 'did-not-fit', estimatedTokens: 500_000, windowTokens: 200_000 }
          : answered(id <= 3 ? `a${id}` : 'wrong', 50, 0.002);
      results.push(await scoreRun(item(id), run, { variant: 'direct', scorer: exact }));
    }
    return results;
  }

  test('means, Wilson intervals, cost per item and p50/p95 time', async () => {
    const summary = summarizeEval(await knownResults());
    const [rlm, direct] = summary.variants;
    expect(rlm).toMatchObject({
      variant: 'rlm',
      items: 10,
      scored: 10,
      failedRuns: 0,
      didNotFit: 0,
      meanScore: 0.8,
      unpricedItems: 0,
      tokens: 1000,
      p50DurationMs: 550,
      meanSteps: 3,
      meanSubCalls: 2,
    });
    expect(rlm!.costUsd).toBeCloseTo(0.1, 12);
    expect(rlm!.costPerItemUsd).toBeCloseTo(0.01, 12);
    expect(rlm!.p95DurationMs).toBeCloseTo(955, 9);
    // Wilson 95% for 8 of 10.
    expect(rlm!.interval!.method).toBe('wilson');
    expect(rlm!.interval!.low).toBeCloseTo(0.490162, 5);
    expect(rlm!.interval!.high).toBeCloseTo(0.943317, 5);
    expect(direct).toMatchObject({ items: 10, didNotFit: 5, meanScore: 0.3, p50DurationMs: 50 });
    // Cost per item counts only the items that were sent.
    expect(direct!.costPerItemUsd).toBeCloseTo(0.002, 12);
    expect(direct!.interval!.low).toBeCloseTo(0.107789, 5);
    expect(direct!.interval!.high).toBeCloseTo(0.603222, 5);
  });

  test('the text table shows the same numbers and names the interval method', async () => {
    const text = formatEvalSummary(summarizeEval(await knownResults()));
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^variant\s+items\s+score\s+95% CI\s+cost\/item\s+p50\s+p95/);
    expect(lines[1]).toMatch(
      /^rlm\s+10\s+0\.800\s+0\.490–0\.943\s+\$0\.01\s+550 ms\s+955 ms\s+3\.0\s+2\.0$/,
    );
    expect(lines[2]).toMatch(/^direct\s+10\s+0\.300\s+0\.108–0\.603\s+\$0\.002\s+50 ms\s+50 ms/);
    expect(text).toContain('direct: 5 did not fit the window (scored 0)');
    expect(text).toContain('CI: Wilson score interval (scores all 0 or 1)');
  });

  test('unscored items are left out of the mean and counted; the judge cost is apart', () => {
    const base = {
      query: 'q',
      expected: 'x',
      scorer: 'judge',
      usage: usage(10, 0.5),
      costUsd: 0.5,
      tokens: 10,
      durationMs: 1,
      steps: 1,
      subCalls: 0,
    };
    const summary = summarizeEval([
      { ...base, id: 1, variant: 'v', score: 1, judge: { usage: usage(5, 0.1), costUsd: 0.1 } },
      { ...base, id: 2, variant: 'v', score: 0.5, judge: { usage: usage(5, 0.1), costUsd: 0.1 } },
      {
        ...base,
        id: 3,
        variant: 'v',
        score: null,
        scoreFailure: { kind: 'judge-unparseable', message: 'no score' },
        judge: { usage: usage(5, 0.1), costUsd: 0.1 },
      },
    ]);
    const [variant] = summary.variants;
    expect(variant).toMatchObject({ items: 3, scored: 2, unscored: 1, meanScore: 0.75 });
    expect(variant!.judgeCostUsd).toBeCloseTo(0.3, 12);
    expect(variant!.costUsd).toBeCloseTo(1.5, 12);
    expect(variant!.interval!.method).toBe('student-t');
  });
});

describe('readEvalResults', () => {
  test('keeps the last line of each pair, skips a line cut short and anything else', async () => {
    const first = await scoreRun(
      item(1),
      {
        kind: 'failed',
        error: { name: 'E', message: 'm' },
        usage: usage(1),
        durationMs: 1,
        steps: 0,
        subCalls: 0,
      },
      { variant: 'rlm', scorer: exact },
    );
    const retried = await scoreRun(item(1), answered('a1', 9), { variant: 'rlm', scorer: exact });
    const other = await scoreRun(item(2), answered('a2', 9), { variant: 'rlm', scorer: exact });
    const text = [
      JSON.stringify(first),
      JSON.stringify(other),
      '{"not": "a result"}',
      JSON.stringify(retried),
      JSON.stringify(other).slice(0, 30),
    ].join('\n');
    const read = readEvalResults(text);
    expect(read.endsMidLine).toBe(true);
    expect(read.results).toEqual([retried, other]);
    expect(readEvalResults(`${JSON.stringify(other)}\n`).endsMidLine).toBe(false);
  });
});
