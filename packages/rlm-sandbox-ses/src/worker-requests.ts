/**
 * Requests from the host to its worker between executions (list, get, set, checkpoint
 * snapshots and restores): each answered once, watched for a worker held by code left running,
 * and sent once more when the worker was replaced before it answered.
 */
import { SandboxError, SnapshotPreemptedError } from '@rlm/core';
import { describeError } from './describe-error.js';
import type { SesWorker } from './ses-worker.js';
import type { HostMessage, Transferred, VariableRecord, WorkerMessage } from './worker-protocol.js';

/** Node fires longer timers at once; a longer timeout waits this long. */
const maxTimerDelayMs = 2 ** 31 - 1;
/** A request waits at least this long before a silent worker counts as held: large copies take time. */
const minRequestWaitMs = 1_000;

/** A request to the worker that {@link WorkerRequests.request} answers. */
export type RequestMessage =
  | { readonly type: 'list' }
  | { readonly type: 'get'; readonly name: string }
  | { readonly type: 'set'; readonly variables: readonly VariableRecord[] }
  | {
      readonly type: 'snapshot-variables';
      readonly exclude: readonly string[];
      readonly maxBytesPerVariable: number;
      readonly previousDigests: Readonly<Record<string, string>> | 'as-reported';
    }
  | {
      readonly type: 'restore-variables';
      readonly variables: readonly { readonly name: string; readonly bytes: Uint8Array }[];
    };

interface PendingRequest {
  resolve(value: unknown): void;
  reject(error: Error): void;
  /** Restarts a worker that leaves the request unanswered (see `#watch`). */
  readonly watchdog: ReturnType<typeof setTimeout>;
  /** Whether its watchdog keeps the process alive (not for a listing nobody may ask for). */
  readonly referenced: boolean;
}

/** What the requests need of the sandbox. */
export interface RequestHost {
  /** The current worker, started if there is none. */
  readonly worker: () => SesWorker;
  readonly isCurrent: (worker: SesWorker) => boolean;
  readonly isDisposed: () => boolean;
  /** Whether an execution runs: its own limits hold the worker meanwhile. */
  readonly isExecuting: () => boolean;
  /** Stops a worker held by code left running; fails what waits on it. */
  readonly stopHeld: (worker: SesWorker, error: Error) => void;
  /** Keeps the worker referenced (the process alive) while `work` runs. */
  readonly hold: <T>(work: Promise<T>) => Promise<T>;
  readonly unpack: (transferred: Transferred, what: string) => unknown;
  readonly disposedError: () => Error;
  readonly timeoutMs: number;
}

/**
 * Errors that failed requests because their worker was replaced, not because of the request:
 * such a request is sent once more, to the new worker.
 */
const replacedWorkerErrors = new WeakSet<Error>();

/** Marks `error` as one that failed requests only because their worker was replaced. */
export function markReplacedWorker(error: Error): Error {
  replacedWorkerErrors.add(error);
  return error;
}

export class WorkerRequests {
  readonly #host: RequestHost;
  readonly #pending = new Map<number, PendingRequest>();
  #nextId = 1;

  constructor(host: RequestHost) {
    this.#host = host;
  }

  /**
   * Sends a request to the worker; when the worker is replaced before it answers (a timeout,
   * or code left running by an earlier execution), sends it once more, to the new worker.
   */
  async request(message: RequestMessage): Promise<unknown> {
    try {
      return await this.#send(message);
    } catch (error) {
      if (this.#host.isDisposed() || !replacedWorkerErrors.has(error as Error)) throw error;
      return this.#send(message);
    }
  }

  /**
   * A `list` request whose id another message carries (an `execute`: the worker lists the
   * variables once idle after it), watched as any request but not posted. Resolves with the
   * listing, sorted; rejects as a `list` request would.
   */
  awaitListing(worker: SesWorker): { readonly id: number; readonly listing: Promise<unknown> } {
    const id = this.#nextId++;
    const listing = new Promise<unknown>((resolve, reject) => {
      this.#pending.set(id, {
        resolve,
        reject,
        watchdog: this.#watch(worker, id, false),
        referenced: false,
      });
    });
    // Nobody may ask for it (an execution that faulted, a sandbox used without listings).
    listing.catch(() => undefined);
    return { id, listing };
  }

  /** Fails every request waiting with `error`. */
  rejectAll(error: Error): void {
    for (const request of this.#pending.values()) {
      clearTimeout(request.watchdog);
      request.reject(error);
    }
    this.#pending.clear();
  }

  /** Handles the worker's answers to requests; returns whether `message` was one. */
  handle(worker: SesWorker, message: WorkerMessage): boolean {
    switch (message.type) {
      case 'reply': {
        const request = this.#take(message.id);
        if (request === undefined) return true;
        if (!message.ok) {
          request.reject(new SandboxError(`@rlm/sandbox-ses: ${message.message}`));
          return true;
        }
        try {
          request.resolve(this.#host.unpack(message.value, 'the value is'));
        } catch (error) {
          request.reject(
            new SandboxError(
              `@rlm/sandbox-ses: the value cannot be read (${describeError(error)})`,
              { cause: error },
            ),
          );
        }
        return true;
      }
      case 'variables-snapshot': {
        const request = this.#take(message.id);
        if (request === undefined) return true;
        if ('preempted' in message) request.reject(new SnapshotPreemptedError());
        else request.resolve(message.entries);
        return true;
      }
      case 'listing': {
        // Applied whatever became of the request: the next listing is relative to this one.
        worker.applyListing(message);
        this.#take(message.id)?.resolve(worker.sortedListing());
        return true;
      }
      case 'request-progress': {
        // A long snapshot, taken in slices: the worker answers meanwhile, so it is not held.
        const request = this.#pending.get(message.id);
        if (request === undefined) return true;
        clearTimeout(request.watchdog);
        this.#pending.set(message.id, {
          ...request,
          watchdog: this.#watch(worker, message.id, request.referenced),
        });
        return true;
      }
      default:
        return false;
    }
  }

  async #send(message: RequestMessage): Promise<unknown> {
    const host = this.#host;
    if (host.isDisposed()) throw host.disposedError();
    const worker = host.worker();
    return host.hold(
      worker.ready.then(
        () =>
          new Promise<unknown>((resolve, reject) => {
            if (host.isDisposed()) throw host.disposedError();
            const id = this.#nextId++;
            const watchdog = this.#watch(worker, id, true);
            this.#pending.set(id, { resolve, reject, watchdog, referenced: true });
            try {
              worker.post({ ...message, id } as HostMessage);
            } catch (error) {
              clearTimeout(watchdog);
              this.#pending.delete(id);
              reject(
                new SandboxError(
                  `@rlm/sandbox-ses: the value cannot be copied into the sandbox (${describeError(error)})`,
                  { cause: error },
                ),
              );
            }
          }),
      ),
    );
  }

  /** The request `id` waits for, no longer waiting (its watchdog cleared); `undefined` if none. */
  #take(id: number): PendingRequest | undefined {
    const request = this.#pending.get(id);
    if (request === undefined) return undefined;
    this.#pending.delete(id);
    clearTimeout(request.watchdog);
    return request;
  }

  /**
   * A worker answers requests between executions at once, unless code that an earlier execution
   * left running holds it: a promise chain that never yields, the getters of an unhandled
   * rejection's reason, the getters of a variable being copied. A request unanswered for
   * `timeoutMs` (at least {@link minRequestWaitMs}) while no execution runs restarts the worker,
   * as a timeout would.
   */
  #watch(worker: SesWorker, id: number, referenced: boolean): ReturnType<typeof setTimeout> {
    const host = this.#host;
    const waitMs = Math.min(Math.max(host.timeoutMs, minRequestWaitMs), maxTimerDelayMs);
    const watchdog = setTimeout(() => {
      const request = this.#pending.get(id);
      if (request === undefined || !host.isCurrent(worker)) return;
      if (host.isExecuting()) {
        // The execution's own limits hold the worker meanwhile; wait again after it.
        this.#pending.set(id, { ...request, watchdog: this.#watch(worker, id, referenced) });
        return;
      }
      const error = markReplacedWorker(
        new SandboxError(
          `@rlm/sandbox-ses: the sandbox did not answer within ${waitMs} ms (code an earlier execution left running held it) and restarted`,
        ),
      );
      host.stopHeld(worker, error);
    }, waitMs);
    if (!referenced) watchdog.unref();
    return watchdog;
  }
}
