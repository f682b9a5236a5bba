import { expandModelCalls } from './expand-model-calls.js';
import type { TraceDocument } from './trace-document.js';
import { runTraceViewer } from './viewer-script.js';
import { viewerStyle } from './viewer-style.js';

/**
 * One self-contained HTML page showing `trace`: first the question, the answer (or the error),
 * the totals and a timeline of model, retry, sandbox and waiting time per call; then the
 * collapsible call tree, with tokens and cost per node, highlighted code, what the model was
 * asked at each step (system prompt and messages) and the whole prompts and answers of sub-calls,
 * on demand; and a search box. Needs no network: styles, script and data are inline. Model-made text is data, never
 * markup: the trace travels as JSON inside a `<script type="application/json">` element with
 * every `<`, `>`, `&` and line separator escaped, and the page puts it on screen as text.
 */
export function renderTraceHtml(trace: TraceDocument): string {
  const title = `rlm trace · ${trace.query.replace(/\s+/g, ' ').slice(0, 80)}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${viewerStyle}</style>
</head>
<body>
<div id="app"></div>
<script type="application/json" id="rlm-trace-data">${scriptSafeJson(trace)}</script>
<script>(${runTraceViewer.toString()})(${expandModelCalls.toString()});</script>
</body>
</html>
`;
}

/** Text safe inside HTML text and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** JSON that cannot end its `<script>` element or open a comment inside it. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}
