/**
 * Measures the first sandbox of a fresh process (no warm caches of any kind), or with
 * `--empty-worker` the start of an empty worker thread (Node's floor). Prints the milliseconds.
 */
import { Worker } from 'node:worker_threads';
import { createSesSandbox } from '@rlm/sandbox-ses';

async function startEmptyWorker(): Promise<void> {
  const worker = new Worker('require("node:worker_threads").parentPort.postMessage(0)', {
    eval: true,
    env: {},
  });
  await new Promise((resolve) => worker.once('message', resolve));
  await worker.terminate();
}

const createSandbox = createSesSandbox();
const started = performance.now();
if (process.argv.includes('--empty-worker')) {
  await startEmptyWorker();
  process.stdout.write(`${performance.now() - started}\n`);
} else {
  const sandbox = await createSandbox({ hostFunctions: {} });
  process.stdout.write(`${performance.now() - started}\n`);
  await sandbox.dispose();
}
