// A child process of tool-store.concurrency.test.ts: one writer among several, using the
// built package. Arguments: <root> <worker index> <increments>.
import { createToolStore } from '@rlm/toolstore';

const [root, worker, increments] = process.argv.slice(2);
const runtime = { runtimeVersion: '0.1.0', promptVersion: 'p' };
const store = createToolStore({ root, lock: { timeoutMs: 30_000 } });

await store.upsertTool(`role_${worker}`, { purpose: `written by worker ${worker}` });
for (let index = 0; index < Number(increments); index++) {
  await store.recordOutcome('shared', 'count', {
    ok: true,
    programSource: 'persisted',
    generationId: 'gen-1',
  });
  if (index === Math.floor(Number(increments) / 2)) {
    await store.persistGeneration('shared', 'build', {
      code: `return ${worker};`,
      contract: { purpose: 'shared' },
      model: `worker-${worker}`,
      trigger: 'regenerate',
      runtime,
    });
  }
}
