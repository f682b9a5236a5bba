import { WorkerPool } from '@rlm/core/sandbox-support';
import type { WorkerMessage, WorkerStart } from './worker-protocol.js';

/**
 * The young generation of a worker's heap, in MiB. V8 grows it to 48 MiB under a high rate of
 * short-lived objects (every step's variable snapshot makes some) and keeps it at rest: capped,
 * a 200-step run rests 34 MiB lower, and the compute workloads ran as fast or faster.
 */
export const sesYoungGenerationMb = 8;

/** V8's code cache of SES, made by the first worker of this process and handed to the others. */
let sesCodeCache: Uint8Array | undefined;

/**
 * The pool of SES workers for one `createSesSandbox` factory (see `WorkerPool`): a spare that
 * has loaded SES and locked down. The first worker of the process hands V8's code cache of SES
 * back, and later workers compile SES from it.
 */
export function createSesWorkerPool(workerUrl: URL): WorkerPool {
  return new WorkerPool({
    workerUrl,
    workerData: (): WorkerStart => ({ sesCodeCache }),
    resourceLimits: (memoryMb) => ({
      maxOldGenerationSizeMb: memoryMb,
      maxYoungGenerationSizeMb: sesYoungGenerationMb,
    }),
    onStart(worker) {
      if (sesCodeCache !== undefined) return;
      // Posted once, before the worker's first execution: no guest code can have sent it.
      const onMessage = (message: WorkerMessage) => {
        if (message.type !== 'code-cache') return;
        worker.off('message', onMessage);
        if (message.data instanceof Uint8Array) sesCodeCache ??= message.data;
      };
      worker.on('message', onMessage);
    },
  });
}
