import { Worker } from 'node:worker_threads';

/** Samples the process's resident memory from its own thread, so a busy host misses no peak. */
export interface RssSampler extends AsyncDisposable {
  /** Starts a new window; resolves with the resident bytes at its start. */
  reset(): Promise<number>;
  /** The highest resident bytes seen since the last `reset`. */
  peak(): Promise<number>;
}

const samplerSource = `
const { parentPort } = require('node:worker_threads');
let peak = 0;
setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 1);
parentPort.on('message', (type) => {
  const rss = process.memoryUsage.rss();
  if (type === 'reset') peak = rss;
  else peak = Math.max(peak, rss);
  parentPort.postMessage(type === 'reset' ? rss : peak);
});
`;

/** Starts the sampler thread (1 ms period). */
export async function startRssSampler(): Promise<RssSampler> {
  const worker = new Worker(samplerSource, { eval: true });
  const ask = (type: 'reset' | 'peak') =>
    new Promise<number>((resolve) => {
      worker.once('message', resolve);
      worker.postMessage(type);
    });
  await ask('reset');
  return {
    reset: () => ask('reset'),
    peak: () => ask('peak'),
    [Symbol.asyncDispose]: async () => {
      await worker.terminate();
    },
  };
}
