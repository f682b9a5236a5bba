import { createSesSandbox } from '@rlm/sandbox-ses';
let seed = 1; const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const vocab = Array.from({ length: 5000 }, (_, i) => 'w' + i.toString(36) + 'abc'.slice(0, i % 4));
const parts = []; let len = 0; while (len < 20 * 1024 * 1024) { const w = vocab[Math.floor(rnd() ** 2 * vocab.length)]; parts.push(w); len += w.length + 1; if (parts.length % 12 === 0) parts.push('\n'); }
const text = parts.join(' ');
const work = {
  freq: '{ const counts = new Map(); for (const word of context.split(/\\s+/)) counts.set(word, (counts.get(word) ?? 0) + 1); result = counts.size; }',
  split: 'result = context.split(/\\s+/).length;',
  count: 'result = context.match(/\\w+/g).length;',
  loop: 'total = 0; for (const w of words) total += w.length; result = total;',
};
const sandbox = await createSesSandbox()({ hostFunctions: {} });
await sandbox.setVariables({ context: text });
await sandbox.execute("let result; let total = 0; const words = context.split(' ');");
const out = {};
for (let r = 0; r < 3; r++) for (const [k, code] of Object.entries(work)) { const s = performance.now(); const res = await sandbox.execute(code, { timeoutMs: 600000 }); if (res.error) throw new Error(res.error); (out[k] ??= []).push(performance.now() - s); }
console.log(process.env.YOUNG ?? 'default', Object.entries(out).map(([k, v]) => k + ' ' + v.sort((a, b) => a - b)[1].toFixed(0)).join(' | '));
await sandbox.dispose();
