/** The trace viewer's stylesheet, inlined into the HTML. */
export const viewerStyle = `
:root { color-scheme: light dark; --bg: #fbfbfa; --fg: #1d1d1f; --muted: #6b6b70; --line: #deded9;
  --panel: #ffffff; --code: #f4f4f1; --model: #4f7cd8; --sandbox: #3aa66a; --waiting: #e09b2d;
  --error: #c8383b; --warn: #b7791f; --mark: #ffe066; }
@media (prefers-color-scheme: dark) { :root { --bg: #17181b; --fg: #e8e8ea; --muted: #9a9aa3;
  --line: #34353a; --panel: #1f2024; --code: #26272c; --mark: #7a6414; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--fg); }
#app { max-width: 1200px; margin: 0 auto; padding: 16px 20px 80px; }
header { position: sticky; top: 0; background: var(--bg); padding: 8px 0; border-bottom: 1px solid var(--line); z-index: 2; }
h1 { font-size: 18px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 20px 0 8px; }
.run-line { display: flex; gap: 8px; align-items: baseline; }
.run-line .query { font-weight: 600; }
.totals, .meta, .row-meta, .label, .search-status, .note { color: var(--muted); font-size: 12px; }
.search-row { display: flex; gap: 8px; align-items: center; margin-top: 8px; }
#search { flex: 1; max-width: 560px; padding: 6px 10px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--fg); font: inherit; }
button.more { margin: 6px 0 6px 16px; }
button { font: inherit; font-size: 12px; padding: 4px 10px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--fg); cursor: pointer; }
.badge { display: inline-block; font-size: 11px; padding: 1px 7px; border-radius: 10px; background: var(--code); border: 1px solid var(--line); white-space: nowrap; }
.status-answered.badge { background: #d9f2e1; color: #17603a; }
.status-failed.badge { background: #f9dcdc; color: #8a1f22; }
.status-running.badge { background: #fdf0d5; color: #7a5200; }
.legend { display: flex; gap: 14px; font-size: 12px; color: var(--muted); margin-bottom: 6px; }
.legend-item { display: inline-flex; gap: 5px; align-items: center; }
.swatch { width: 12px; height: 10px; border-radius: 2px; display: inline-block; }
.seg-model { background: var(--model); } .seg-sandbox { background: var(--sandbox); } .seg-waiting { background: var(--waiting); }
.seg-retry { background: repeating-linear-gradient(135deg, var(--error) 0 4px, var(--model) 4px 8px); }
.outcome { margin: 12px 0 4px; }
.outcome pre { max-height: 240px; }
details.request, details.served { border-left-color: var(--muted); }
.messages .label { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.rows { border: 1px solid var(--line); border-radius: 8px; background: var(--panel); padding: 6px 8px; }
.row { display: grid; grid-template-columns: 260px 1fr 300px; gap: 10px; align-items: center; min-height: 20px; }
.row-label { white-space: pre; overflow: hidden; text-overflow: ellipsis; font-size: 12px; }
.bar { position: relative; height: 12px; background: var(--code); border-radius: 3px; overflow: hidden; }
.seg { position: absolute; top: 0; bottom: 0; cursor: pointer; min-width: 1px; }
details { border-left: 2px solid var(--line); margin: 4px 0 4px 6px; padding-left: 10px; }
details > summary { cursor: pointer; display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; padding: 2px 0; list-style: none; }
details > summary::before { content: "▸"; color: var(--muted); width: 10px; }
details[open] > summary::before { content: "▾"; }
details.call { border-left-color: var(--model); }
details.call.status-failed { border-left-color: var(--error); }
details.host { border-left-color: var(--waiting); }
.summary .query, summary .query { font-weight: 500; }
.host-name { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.has-error > summary .step-badge { border-color: var(--error); color: var(--error); }
.warn-flag { color: var(--warn); }
.field, .block { margin: 6px 0; }
pre { margin: 2px 0; padding: 8px 10px; border-radius: 6px; background: var(--code); white-space: pre-wrap; word-break: break-word; max-height: 480px; overflow: auto; font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre.error { color: var(--error); }
pre.answer { border-left: 3px solid var(--sandbox); }
.note.warning { color: var(--warn); }
.error { color: var(--error); }
.tok-keyword { color: #a626a4; font-weight: 600; } .tok-string { color: #50a14f; } .tok-number, .tok-literal { color: #c18401; }
.tok-comment { color: #8e908c; font-style: italic; } .tok-call { color: #4078f2; }
@media (prefers-color-scheme: dark) { .tok-keyword { color: #d58fdc; } .tok-string { color: #98c379; } .tok-number, .tok-literal { color: #e5c07b; } .tok-call { color: #61afef; } }
mark.hit { background: var(--mark); color: inherit; border-radius: 2px; }
.match { outline: 2px solid var(--mark); }
`;
