/**
 * The worker a sandbox uses now: started when first needed, kept referenced (the process
 * alive) while the sandbox works, and terminated when it faults, is held, or the sandbox is
 * disposed.
 */
import type { SesWorker, SesWorkerStart } from './ses-worker.js';
import { startSesWorker } from './ses-worker.js';

/** How the lifecycle starts workers and tells the sandbox of them. */
export interface LifecycleHooks {
  /** How to start a worker now (its variables as of now). */
  readonly start: () => Omit<SesWorkerStart, 'onMessage' | 'onFailure' | 'referenced'>;
  /** A message of the current worker. */
  readonly onMessage: SesWorkerStart['onMessage'];
  readonly onFailure: SesWorkerStart['onFailure'];
  /** `worker` is being stopped with `error`: fail what waits on it. */
  readonly onStop: (worker: SesWorker, error: Error, wasCurrent: boolean) => void;
}

export class WorkerLifecycle {
  readonly #hooks: LifecycleHooks;
  readonly #stopping = new Set<Promise<number>>();
  #current: SesWorker | undefined;
  #busy = 0;

  constructor(hooks: LifecycleHooks) {
    this.#hooks = hooks;
  }

  /** The worker in use; `undefined` between a stop and the next use. */
  get current(): SesWorker | undefined {
    return this.#current;
  }

  /** The worker in use, started if there is none. */
  ensure(): SesWorker {
    if (this.#current) return this.#current;
    const worker = startSesWorker({
      ...this.#hooks.start(),
      onMessage: (state, message) => {
        if (this.#current === state) this.#hooks.onMessage(state, message);
      },
      onFailure: this.#hooks.onFailure,
      referenced: this.#busy > 0,
    });
    this.#current = worker;
    return worker;
  }

  /** Terminates `worker` and fails what waits on it. The next use starts a new one. */
  stop(worker: SesWorker, error: Error): void {
    const wasCurrent = this.#current === worker;
    if (wasCurrent) this.#current = undefined;
    this.#hooks.onStop(worker, error, wasCurrent);
    worker.failStart(error);
    const stopping = worker.worker.terminate();
    this.#stopping.add(stopping);
    void stopping.finally(() => this.#stopping.delete(stopping));
  }

  /** Keeps the worker referenced (the process alive) while `work` runs. */
  async hold<T>(work: Promise<T>): Promise<T> {
    if (this.#busy++ === 0) this.#current?.worker.ref();
    try {
      return await work;
    } finally {
      if (--this.#busy === 0) this.#current?.worker.unref();
    }
  }

  /** Stops the worker in use with `error`; resolves once every worker stopped. */
  async stopAll(error: Error): Promise<void> {
    if (this.#current) this.stop(this.#current, error);
    await Promise.all([...this.#stopping]);
  }
}
