/** The report's stylesheet: system fonts, light and dark, readable tables. */
export const reportStyle = `
:root { color-scheme: light dark; --muted: #6b7280; --line: #d1d5db; --good: #15803d; --bad: #b91c1c; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1100px; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; }
header p, .method, .empty, figcaption small { color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 5px 8px; text-align: left; vertical-align: top; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
figure { margin: 16px 0 24px; }
figcaption { font-weight: 600; margin-bottom: 6px; }
.score-1 { color: var(--good); font-weight: 600; }
.score-0 { color: var(--bad); font-weight: 600; }
.answer { color: var(--muted); display: block; font-size: 12px; max-width: 28em; overflow-wrap: anywhere; }
a { color: #2563eb; }
`;
