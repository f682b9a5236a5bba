import { WorkerPool } from '@rlm/core/sandbox-support';
import type { WorkerMessage, WorkerStart } from './worker-protocol.js';

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
