import { emptyRunUsage } from '@rlm/core';
import { describe, expect, test } from 'vitest';
import type { EvalResult } from '../results/eval-result.js';
import { summarizeEval } from '../results/summarize-eval.js';
import { findDisagreements, reportChartData } from './report-data.js';
import { renderEvalReport } from './render-eval-report.js';

const hostile = '</script><script>window.__pwned = 1</script><!-- <img src=x onerror=alert(1)>';

function line(
  id: number,
  variant: string,
  score: number | null,
  extra: Partial<EvalResult> = {},
): EvalResult {
  return {
    id,
    variant,
    query: `Question ${id}?`,
    answer: `answer ${id}`,
    expected: `answer ${id}`,
    score,
    scorer: 'exact',
    usage: { ...emptyRunUsage(), inputTokens: 100, modelCalls: 1, costUsd: 0.01 },
    costUsd: 0.01,
    tokens: 100,
    durationMs: 1000 * id,
    steps: 2,
    subCalls: 1,
    contextChars: id <= 2 ? 8_000 : 32_000,
    runId: `run-${variant}-${id}`,
    ...extra,
  };
}

const results: EvalResult[] = [
  line(1, 'rlm', 1),
  line(2, 'rlm', 1),
  line(3, 'rlm', 0),
  line(4, 'rlm', 1),
  line(1, 'direct', 1),
  line(2, 'direct', 0, { answer: hostile, query: hostile }),
  line(3, 'direct', 0, {
    answer: undefined,
    didNotFit: { estimatedTokens: 9e5, windowTokens: 2e5 },
    costUsd: undefined,
  }),
  line(4, 'direct', null, { scoreFailure: { kind: 'threw', message: 'boom' } }),
];

describe('the report data', () => {
  test('mean score per variant and length, durations of sent runs only', () => {
    const data = reportChartData(results, summarizeEval(results));
    expect(data.variants.map((variant) => [variant.variant, variant.meanScore])).toEqual([
      ['rlm', 0.75],
      ['direct', 1 / 3],
    ]);
    expect(data.byLength).toEqual([
      { variant: 'direct', contextChars: 8_000, meanScore: 0.5, items: 2 },
      { variant: 'direct', contextChars: 32_000, meanScore: 0, items: 1 },
      { variant: 'rlm', contextChars: 8_000, meanScore: 1, items: 2 },
      { variant: 'rlm', contextChars: 32_000, meanScore: 0.5, items: 2 },
    ]);
    expect(data.binnedLengths).toBe(false);
    expect(data.durations.filter((point) => point.variant === 'direct')).toHaveLength(3);
  });

  test('disagreements: items with two differing scores, widest first', () => {
    const rows = findDisagreements(results);
    // Item 2 (1 vs 0); item 3 scores 0 twice; item 4 has one score.
    expect(rows.map((row) => row.id)).toEqual([2]);
    expect([...rows[0]!.results.keys()]).toEqual(['rlm', 'direct']);
  });
});

describe('renderEvalReport', () => {
  const html = renderEvalReport(results, {
    title: 'My eval',
    scorer: 'exact',
    traceHref: (result) => `traces/${result.runId}.html`,
    generatedAt: new Date('2026-11-24T10:00:00Z'),
  });

  test('is one page with its script, style and data inline and no external resource', () => {
    // Booleans: a failure must not print the 280 kB page.
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(/<(?:script|link|img|iframe)[^>]+(?:src|href)=/i.test(html)).toBe(false);
    expect(/(?:src|href)=["']?https?:/i.test(html)).toBe(false);
    // The license notices of the bundled code travel with it.
    expect(html.includes('@observablehq/plot:\nCopyright 2020-2025 Observable, Inc.')).toBe(true);
    expect(/d3-scale, [\s\S]*Copyright 2010-\d+ Mike Bostock/.test(html)).toBe(true);
  });

  test('text from the results cannot end a script or add markup', () => {
    expect(html.match(/<script/gi)).toHaveLength(2);
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html.includes('<img')).toBe(false);
    expect(html.includes('<!--')).toBe(false);
    // The hostile answer and question are in the disagreement row, as text.
    expect(html.includes('&lt;/script&gt;&lt;script&gt;window.__pwned')).toBe(true);
  });

  test('the summary table holds the summary numbers; the links point at the traces', () => {
    const summary = summarizeEval(results);
    for (const variant of summary.variants) {
      const row = new RegExp(`<tr data-variant="${variant.variant}">(.*?)</tr>`).exec(html)![1]!;
      expect(row).toContain(`data-field="mean" data-value="${variant.meanScore}"`);
      expect(row).toContain(`data-low="${variant.interval!.low}"`);
      expect(row).toContain(`data-field="did-not-fit" data-value="${variant.didNotFit}"`);
    }
    for (const text of [
      'href="traces/run-rlm-2.html"',
      'href="traces/run-direct-2.html"',
      'Items where variants disagree (1)',
      'Wilson score interval',
    ]) {
      expect(html.includes(text), text).toBe(true);
    }
  });
});
