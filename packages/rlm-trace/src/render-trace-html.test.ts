import { describe, expect, test } from 'vitest';
import { createTrace, reduceTrace } from './reduce-trace.js';
import { escapeHtml, renderTraceHtml, scriptSafeJson } from './render-trace-html.js';
import { sampleRunEvents } from './testing/sample-run-events.js';

const hostile = '</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)> \u2028';

describe('renderTraceHtml', () => {
  test('is one self-contained page: inline style and script, no external resource', () => {
    const trace = sampleRunEvents().reduce(
      (current, event) => reduceTrace(current, event, 0),
      createTrace({ runId: 'run-1', startedAt: 0 }),
    );
    const html = renderTraceHtml(trace);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<(?:script|link|img)[^>]+(?:src|href)=/i);
    expect(html).not.toMatch(/https?:\/\//);
  });

  test('model-made text cannot end the data element or add markup', () => {
    const events = sampleRunEvents().map((event) =>
      event.type === 'execution'
        ? { ...event, output: hostile }
        : event.type === 'call-start' && event.depth === 0
          ? { ...event, query: hostile }
          : event,
    );
    const trace = events.reduce(
      (current, event) => reduceTrace(current, event, 0),
      createTrace({ runId: 'run-1', startedAt: 0 }),
    );
    const html = renderTraceHtml(trace);
    // Exactly the page's own two scripts open and close.
    expect(html.match(/<script/gi)).toHaveLength(2);
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<!--');
    expect(html).toContain('&lt;/script&gt;');
    const data = /<script type="application\/json" id="rlm-trace-data">([\s\S]*?)<\/script>/.exec(
      html,
    )![1]!;
    expect(JSON.parse(data).calls[0].steps[0].blocks[0].output).toBe(hostile);
  });

  test('escapeHtml and scriptSafeJson escape every special character', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    const json = scriptSafeJson({ text: hostile });
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual({ text: hostile });
  });
});
