import { type ResourceLimits, Worker } from 'node:worker_threads';

/** Settings of a {@link WorkerPool}. */
export interface WorkerPoolSettings {
  /** The worker script. */
  readonly workerUrl: URL;
  /** The `workerData` of a new worker for sandboxes whose memory limit is `memoryMb`. */
  readonly workerData?: (memoryMb: number) => unknown;
  /** Its `resourceLimits`. Default: `{ maxOldGenerationSizeMb: memoryMb }`. */
  readonly resourceLimits?: (memoryMb: number) => ResourceLimits;
  /** Called with every worker the pool starts, before it can send anything. */
  readonly onStart?: (worker: Worker) => void;
}

/**
 * A worker taken for a sandbox and the start it is making: its sandbox settles `ready` once the
 * worker says it is ready (with what the ready message carries), or fails it.
 */
export interface StartingWorker<Ready> {
  readonly worker: Worker;
  /** Settles once the sandbox calls `markReady` or `failStart`; its rejection is handled. */
  readonly ready: Promise<Ready>;
  markReady(value: Ready): void;
  failStart(error: Error): void;
}

/**
 * Starts sandbox workers for one sandbox factory, and keeps one spare: a worker that has
 * started (loaded its engine, locked down) and waits for its sandbox. A sandbox that takes the
 * spare (a `sub_rlm` child, or a restart after a fault) starts in milliseconds instead of the
 * time a worker needs. The spare is kept only once a second worker has been taken: a run whose
 * one sandbox never restarts and makes no `sub_rlm` child never pays for a worker it does not
 * use (one SES worker at rest is 13-18 MiB); its first child or restart starts a worker itself,
 * and from then on a spare is kept ready. Workers start with an empty environment and no
 * arguments; the spare never keeps the process alive (it is unref'd) and is terminated when the
 * last open sandbox closes.
 */
export class WorkerPool {
  readonly #settings: WorkerPoolSettings;
  #open = 0;
  #taken = 0;
  #spare: { readonly worker: Worker; readonly memoryMb: number; drop(): void } | undefined;
  readonly #stopping = new Set<Promise<number>>();

  constructor(settings: WorkerPoolSettings) {
    this.#settings = settings;
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
   * A worker for a sandbox whose memory limit is `memoryMb`: the spare when it has that limit,
   * else a new one. The caller owns it (and sends its setup); it starts unref'd.
   */
  take(memoryMb: number): Worker {
    this.#taken++;
    const spare = this.#spare;
    if (spare !== undefined && spare.memoryMb === memoryMb) {
      this.#spare = undefined;
      spare.drop();
      return spare.worker;
    }
    return this.#start(memoryMb);
  }

  /**
   * {@link take}s a worker for a sandbox whose memory limit is `memoryMb` and tracks its start:
   * once the sandbox marks it ready, a spare is prepared for the next sandbox or restart (see
   * {@link prepareSpare}); a failed start prepares none.
   */
  takeStarting<Ready>(memoryMb: number): StartingWorker<Ready> {
    const worker = this.take(memoryMb);
    let markReady!: (value: Ready) => void;
    let failStart!: (error: Error) => void;
    const ready = new Promise<Ready>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    void ready.then(
      () => this.prepareSpare(memoryMb),
      () => undefined,
    );
    return { worker, ready, markReady, failStart };
  }

  /**
   * Starts a spare for sandboxes with `memoryMb` in the background, unless one is there, no
   * sandbox is open, or no more than one worker was ever taken. Call when a sandbox's worker is
   * ready, so the spare does not compete with it for the CPU while it starts.
   */
  prepareSpare(memoryMb: number): void {
    if (this.#open === 0 || this.#taken < 2 || this.#spare?.memoryMb === memoryMb) return;
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
    const { workerUrl, workerData, resourceLimits, onStart } = this.#settings;
    const worker = new Worker(workerUrl, {
      workerData: workerData?.(memoryMb),
      env: {},
      argv: [],
      execArgv: [],
      resourceLimits: resourceLimits?.(memoryMb) ?? { maxOldGenerationSizeMb: memoryMb },
    });
    worker.unref();
    onStart?.(worker);
    return worker;
  }
}
