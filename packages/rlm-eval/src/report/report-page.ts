import * as Plot from '@observablehq/plot';
import type { ReportChartData } from './report-data.js';

/**
 * The report's script, run in the browser: reads the chart data embedded in the page and draws
 * the three charts with Observable Plot (bundled into the page at build time; no network).
 * Sets `data-ready="true"` on the body once every chart is drawn.
 */

const data = JSON.parse(document.getElementById('rlm-eval-data')!.textContent!) as ReportChartData;
const width = 760;
const percent = `${Math.round(data.confidence * 1000) / 10}%`;

function show(id: string, chart: Element | string): void {
  const slot = document.querySelector(`#${id} .plot`)!;
  if (typeof chart === 'string') {
    const empty = document.createElement('p');
    empty.className = 'empty';
    empty.textContent = chart;
    slot.append(empty);
  } else {
    slot.append(chart);
  }
}

const priced = data.variants.filter((variant) => variant.costPerItemUsd !== undefined);
show(
  'chart-score-cost',
  priced.length === 0
    ? 'No variant has a known cost (no model with a price).'
    : Plot.plot({
        width,
        height: 360,
        marginLeft: 50,
        marginRight: 120,
        grid: true,
        x: { label: 'cost per item (US$) →', zero: true, nice: true },
        y: { label: `↑ mean score (bars: ${percent} CI)`, domain: [0, 1] },
        color: { legend: true, domain: data.variants.map((variant) => variant.variant) },
        marks: [
          Plot.ruleX(
            priced.filter((variant) => variant.low !== undefined),
            { x: 'costPerItemUsd', y1: 'low', y2: 'high', stroke: 'variant', strokeWidth: 2 },
          ),
          Plot.dot(priced, {
            x: 'costPerItemUsd',
            y: 'meanScore',
            fill: 'variant',
            r: 6,
            title: (variant: ReportChartData['variants'][number]) =>
              `${variant.variant}: score ${variant.meanScore.toFixed(3)}, $${variant.costPerItemUsd!.toPrecision(4)} per item`,
          }),
          Plot.text(priced, {
            x: 'costPerItemUsd',
            y: 'meanScore',
            text: 'variant',
            dx: 10,
            textAnchor: 'start',
          }),
        ],
      }),
);

show(
  'chart-score-length',
  data.byLength.length === 0
    ? 'No item has a context, so there is no length to chart.'
    : Plot.plot({
        width,
        height: 360,
        marginLeft: 50,
        grid: true,
        x: {
          type: 'log',
          label: `context length (characters${data.binnedLengths ? ', binned by powers of 2' : ''}) →`,
        },
        y: { label: '↑ mean score', domain: [0, 1] },
        color: { legend: true, domain: data.variants.map((variant) => variant.variant) },
        marks: [
          Plot.line(data.byLength, {
            x: 'contextChars',
            y: 'meanScore',
            stroke: 'variant',
            strokeWidth: 2,
          }),
          Plot.dot(data.byLength, {
            x: 'contextChars',
            y: 'meanScore',
            fill: 'variant',
            r: 4,
            title: (point: ReportChartData['byLength'][number]) =>
              `${point.variant}: ${point.contextChars.toLocaleString('en')} characters, score ${point.meanScore.toFixed(3)} over ${point.items} items`,
          }),
        ],
      }),
);

show(
  'chart-time',
  data.durations.length === 0
    ? 'No run was sent.'
    : Plot.plot({
        width,
        height: 80 + 50 * new Set(data.durations.map((point) => point.variant)).size,
        marginLeft: 110,
        grid: true,
        x: { label: 'wall time per item (seconds) →', zero: true },
        y: { label: null },
        marks: [
          Plot.tickX(data.durations, {
            x: 'seconds',
            y: 'variant',
            stroke: '#9aa5b1',
            className: 'run-ticks',
          }),
          Plot.boxX(data.durations, { x: 'seconds', y: 'variant' }),
        ],
      }),
);

document.body.dataset.ready = 'true';
