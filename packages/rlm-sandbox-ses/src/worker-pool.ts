import { Worker } from 'node:worker_threads';
import type { WorkerMessage, WorkerStart } from './worker-protocol.js';

/** V8's code cache of SES, made by the first worker of this process and handed to the others. */
let sesCodeCache: Uint8Array | undefined;

/**
 * Starts sandbox workers for one `createSesSandbox` factory, and keeps one spare: a worker that
 * has loaded SES and locked down, waiting for its sandbox. A sandbox that takes the spare (a
 * `sub_rlm` child, or a restart after a timeout) starts in milliseconds instead of the ~100 ms
 * a worker needs. The spare never keeps the process alive (it is unref'd) and is terminated
 * when the last open sandbox closes.
 */
export class WorkerPool {
  readonly #workerUrl: URL;
  #open = 0;
  #spare: { readonly worker: Worker; readonly memoryMb: number; drop(): void } | undefined;
  readonly #stopping = new Set<Promise<number>>();

  constructor(workerUrl: URL) {
    this.#workerUrl = workerUrl;
  }

  /** The spare worker, started or starting, if there is one (for tests and diagnostics). */
  get spare(): Worker | undefined {
    return this.#spare?.worker;
  }

  /** Counts a sandbox in: the pool keeps a spare only while some sandbox is open. */
  open(): void {
    this.#open++;
  }

  /** Counts a sandbox out (once per `open`); when none is left, terminates the spare. */
  async close(): Promise<void> {
    this.#open = Math.max(0, this.#open - 1);
    if (this.#open === 0) this.#dropSpare();
    await Promise.all(this.#stopping);
  }

  /**
   * A worker for a sandbox whose heap limit is `memoryMb`: the spare when it has that limit,
   * else a new one. The caller owns it (and posts its setup); it starts unref'd.
   */
  take(memoryMb: number): Worker {
    const spare = this.#spare;
    if (spare !== undefined && spare.memoryMb === memoryMb) {
      this.#spare = undefined;
      spare.drop();
      return spare.worker;
    }
    return this.#start(memoryMb);
  }

  /**
   * Starts a spare for sandboxes with `memoryMb` in the background, unless one is there or no
   * sandbox is open. Call when a sandbox's worker is ready, so the spare does not compete with
   * it for the CPU while it starts.
   */
  prepareSpare(memoryMb: number): void {
    if (this.#open === 0 || this.#spare?.memoryMb === memoryMb) return;
    this.#dropSpare();
    const worker = this.#start(memoryMb);
    const onGone = () => {
      if (this.#spare?.worker === worker) this.#spare = undefined;
    };
    worker.on('error', onGone);
    worker.on('exit', onGone);
    this.#spare = {
      worker,
      memoryMb,
      drop: () => {
        worker.off('error', onGone);
        worker.off('exit', onGone);
      },
    };
  }

  #dropSpare(): void {
    const spare = this.#spare;
    if (spare === undefined) return;
    this.#spare = undefined;
    spare.drop();
    const stopping = spare.worker.terminate();
    this.#stopping.add(stopping);
    void stopping.finally(() => this.#stopping.delete(stopping));
  }

  #start(memoryMb: number): Worker {
    const start: WorkerStart = { sesCodeCache };
    const worker = new Worker(this.#workerUrl, {
      workerData: start,
      env: {},
      argv: [],
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    });
    worker.unref();
    if (sesCodeCache === undefined) {
      // Posted once, before the worker's first execution: no guest code can have sent it.
      const onMessage = (message: WorkerMessage) => {
        if (message.type !== 'code-cache') return;
        worker.off('message', onMessage);
        if (message.data instanceof Uint8Array) sesCodeCache ??= message.data;
      };
      worker.on('message', onMessage);
    }
    return worker;
  }
}
