import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadContext } from './dist/index.js';
const root = await mkdtemp(path.join(tmpdir(), 'walk-'));
let t = performance.now();
for (let d = 0; d < 100; d++) {
  const dir = path.join(root, `dir-${d}`, 'sub');
  await mkdir(dir, { recursive: true });
  await Promise.all(Array.from({ length: 1000 }, (_, i) => writeFile(path.join(dir, `file-${i}.txt`), `file ${d}/${i}\n`)));
}
console.log('create', (performance.now() - t).toFixed(0));
for (let r = 0; r < 3; r++) {
  t = performance.now();
  const loaded = await loadContext({ directory: root, maxBytes: 1 << 30 });
  console.log('load', loaded.files, (performance.now() - t).toFixed(0));
}
t = performance.now();
const loaded = await loadContext({ directory: root, maxBytes: 1 << 30, concat: true });
console.log('concat', loaded.files, (performance.now() - t).toFixed(0));
await rm(root, { recursive: true, force: true });
