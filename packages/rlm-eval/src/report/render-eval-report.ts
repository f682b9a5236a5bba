import reportPageScript from 'virtual:report-page';
import type { EvalResult } from '../results/eval-result.js';
import { formatUsd } from '../results/format-eval-summary.js';
import { summarizeEval, type VariantSummary } from '../results/summarize-eval.js';
import { answerText } from '../scorers/normalize-answer.js';
import { escapeHtml, scriptSafeJson } from './html-text.js';
import { type Disagreement, findDisagreements, reportChartData } from './report-data.js';
import { reportStyle } from './report-style.js';

/** Settings of {@link renderEvalReport}. */
export interface EvalReportSettings {
  /** The page's title (default `rlm eval`). */
  readonly title?: string;
  /** What scored the answers, shown under the title (`exact`, `judge (model)`, a module). */
  readonly scorer?: string;
  /** The judge's rubric, shown when the judge scored. */
  readonly rubric?: string;
  /** Confidence level of the intervals (default 0.95). */
  readonly confidence?: number;
  /** The variants in the order to show them (default: as they first appear). */
  readonly variants?: readonly string[];
  /**
   * Where a result's trace is, as a link relative to the report (`traces/<run>.html`), or
   * `undefined` for no link. Links must open offline: write the trace files beside the report.
   */
  readonly traceHref?: (result: EvalResult) => string | undefined;
  /** Shown as the time the report was made (default now). */
  readonly generatedAt?: Date;
}

/**
 * A self-contained HTML report of an eval's results (one line per item and variant): the
 * summary table (mean score, confidence interval, cost, time, steps, sub-calls), three charts
 * drawn in the page by Observable Plot, which is bundled into it (score vs cost per variant,
 * score by context length, time distributions), and the items where variants disagree, each
 * score linking to its run's trace. No network: every script, style and datum is inline, and
 * any text from the results is escaped.
 */
export function renderEvalReport(
  results: readonly EvalResult[],
  settings: EvalReportSettings = {},
): string {
  const summary = summarizeEval(results, {
    ...(settings.confidence === undefined ? {} : { confidence: settings.confidence }),
    ...(settings.variants === undefined ? {} : { variants: settings.variants }),
  });
  const variants = summary.variants.map((variant) => variant.variant);
  const title = settings.title ?? 'rlm eval';
  const items = new Set(results.map((result) => JSON.stringify(result.id))).size;
  const generatedAt = (settings.generatedAt ?? new Date())
    .toISOString()
    .replace('T', ' ')
    .slice(0, 16);
  const percent = `${Math.round(summary.confidence * 1000) / 10}%`;
  const methods = new Set(summary.variants.flatMap((variant) => variant.interval?.method ?? []));
  const disagreements = findDisagreements(results);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${reportStyle}</style>
</head>
<body>
<header>
<h1>${escapeHtml(title)}</h1>
<p>${items} ${items === 1 ? 'item' : 'items'} · ${variants.length} ${variants.length === 1 ? 'variant' : 'variants'}${settings.scorer ? ` · scored by ${escapeHtml(settings.scorer)}` : ''} · made ${escapeHtml(generatedAt)} UTC</p>
${settings.rubric ? `<p class="rubric">Judge's rubric: ${escapeHtml(settings.rubric)}</p>` : ''}
</header>
<section id="summary">
<h2>Summary</h2>
<table class="summary">
<thead><tr><th>variant</th><th class="number">items</th><th class="number">mean score</th><th class="number">${percent} CI</th><th class="number">cost / item</th><th class="number">total cost</th><th class="number">judge cost</th><th class="number">p50 time</th><th class="number">p95 time</th><th class="number">steps</th><th class="number">sub-calls</th><th class="number">failed</th><th class="number">did not fit</th><th class="number">not scored</th></tr></thead>
<tbody>
${summary.variants.map(summaryRow).join('\n')}
</tbody>
</table>
<p class="method">${describeMethods(methods, percent)} Failed runs and contexts that did not fit the window score 0; items whose scorer failed are left out of the mean. Cost per item counts the items that were sent; the judge's cost is apart.</p>
</section>
<section id="charts">
<figure id="chart-score-cost"><figcaption>Score vs cost per variant</figcaption><div class="plot"></div></figure>
<figure id="chart-score-length"><figcaption>Score by context length</figcaption><div class="plot"></div></figure>
<figure id="chart-time"><figcaption>Time per item <small>(boxes: quartiles; ticks: each run)</small></figcaption><div class="plot"></div></figure>
</section>
<section id="disagreements">
<h2>Items where variants disagree (${disagreements.length})</h2>
${disagreements.length === 0 ? '<p class="empty">Every item got the same score from every variant.</p>' : disagreementTable(disagreements, variants, settings.traceHref)}
</section>
<script type="application/json" id="rlm-eval-data">${scriptSafeJson(reportChartData(results, summary))}</script>
<script>${inlineScript(reportPageScript)}</script>
</body>
</html>
`;
}

function summaryRow(variant: VariantSummary): string {
  const cell = (field: string, value: number | undefined, text: string) =>
    `<td class="number" data-field="${field}"${value === undefined ? '' : ` data-value="${value}"`}>${escapeHtml(text)}</td>`;
  const interval = variant.interval;
  return `<tr data-variant="${escapeHtml(variant.variant)}"><td>${escapeHtml(variant.variant)}</td>${[
    cell('items', variant.items, String(variant.items)),
    cell('mean', variant.meanScore, variant.meanScore?.toFixed(3) ?? '–'),
    `<td class="number" data-field="interval"${interval ? ` data-low="${interval.low}" data-high="${interval.high}"` : ''}>${interval ? `${interval.low.toFixed(3)}–${interval.high.toFixed(3)}` : '–'}</td>`,
    cell('cost-per-item', variant.costPerItemUsd, money(variant.costPerItemUsd)),
    cell('cost', variant.costUsd, money(variant.costUsd)),
    cell('judge-cost', variant.judgeCostUsd, money(variant.judgeCostUsd, '–')),
    cell('p50', variant.p50DurationMs, seconds(variant.p50DurationMs)),
    cell('p95', variant.p95DurationMs, seconds(variant.p95DurationMs)),
    cell('steps', variant.meanSteps, variant.meanSteps?.toFixed(1) ?? '–'),
    cell('sub-calls', variant.meanSubCalls, variant.meanSubCalls?.toFixed(1) ?? '–'),
    cell('failed', variant.failedRuns, String(variant.failedRuns)),
    cell('did-not-fit', variant.didNotFit, String(variant.didNotFit)),
    cell('unscored', variant.unscored, String(variant.unscored)),
  ].join('')}</tr>`;
}

function disagreementTable(
  disagreements: readonly Disagreement[],
  variants: readonly string[],
  traceHref: EvalReportSettings['traceHref'],
): string {
  const head = `<thead><tr><th>id</th><th>question</th><th>expected</th>${variants.map((variant) => `<th>${escapeHtml(variant)}</th>`).join('')}</tr></thead>`;
  const rows = disagreements.map((row) => {
    const cells = variants.map((variant) => {
      const result = row.results.get(variant);
      if (result === undefined) return '<td>–</td>';
      const score =
        result.score === null ? 'not scored' : String(Math.round(result.score * 1000) / 1000);
      const scoreClass = result.score === 1 ? 'score-1' : result.score === 0 ? 'score-0' : '';
      const href = traceHref?.(result);
      const shown = href
        ? `<a class="${scoreClass}" href="${escapeHtml(href)}" title="open this run's trace">${escapeHtml(score)}</a>`
        : `<span class="${scoreClass}">${escapeHtml(score)}</span>`;
      const said = result.didNotFit
        ? 'did not fit the window'
        : result.error
          ? `failed: ${result.error.message}`
          : answerText(result.answer);
      return `<td data-variant="${escapeHtml(variant)}">${shown}<span class="answer">${escapeHtml(cut(said, 160))}</span></td>`;
    });
    return `<tr data-id="${escapeHtml(JSON.stringify(row.id))}"><td>${escapeHtml(String(row.id))}</td><td>${escapeHtml(cut(row.query, 200))}</td><td>${escapeHtml(cut(answerText(row.expected), 120))}</td>${cells.join('')}</tr>`;
  });
  return `<table class="disagreements">${head}<tbody>\n${rows.join('\n')}\n</tbody></table>`;
}

function describeMethods(methods: ReadonlySet<string>, percent: string): string {
  const names = [...methods].map((method) =>
    method === 'wilson'
      ? `Wilson score interval (the scores are all 0 or 1)`
      : `Student's t interval on the mean (the scores include fractions)`,
  );
  return names.length === 0 ? '' : `${percent} confidence: ${names.join('; ')}.`;
}

function money(usd: number | undefined, unknown = '?'): string {
  return usd === undefined ? unknown : formatUsd(usd);
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? '–' : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A script's text made safe to sit inside `<script>`: no `</script` and no `<!--`. */
function inlineScript(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}
