import { readFileSync } from 'node:fs';
const rss = () => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync('/proc/self/status','utf8'))[1])/1024;
let last = rss();
console.log('empty node', last.toFixed(1));
const mods = process.argv.slice(2);
for (const m of mods) {
  await import(m);
  const now = rss();
  console.log(m.padEnd(30), (now-last).toFixed(1), 'total', now.toFixed(1));
  last = now;
}
globalThis.gc?.();
console.log('after gc', rss().toFixed(1), JSON.stringify(Object.fromEntries(Object.entries(process.memoryUsage()).map(([k,v])=>[k,(v/1048576).toFixed(1)]))));
