/** One worker a sandbox runs model code in, and what the host knows of it. */
import type { Worker } from 'node:worker_threads';
import type { VariableInfo } from '@rlm/core';
import { OutputBuffer, type WorkerPool } from '@rlm/core/sandbox-support';
import { compareNames } from './compare-names.js';
import type {
  HostMessage,
  VariableRecord,
  WorkerMessage,
  WorkerSetup,
  WorkerSetupMessage,
} from './worker-protocol.js';

/** A running worker and what the host knows of it. */
export interface SesWorker {
  readonly worker: Worker;
  /**
   * Its executions' output, shared memory of this worker alone: a worker that is being
   * terminated (a timeout, a memory fault) may still write for a moment, and must never write
   * into the output of the next worker's execution.
   */
  readonly output: OutputBuffer;
  /** Resolves with the variables the worker could not restore, once it is ready. */
  readonly ready: Promise<string[]>;
  markReady(unrestored: string[]): void;
  failStart(error: Error): void;
  /** The variable listing as this worker last sent it (it sends what changed since). */
  readonly listing: Map<string, VariableInfo>;
  /** Applies a listing the worker sent: what changed since the one before. */
  applyListing(changes: {
    readonly changed: readonly VariableInfo[];
    readonly removed: readonly string[];
  }): void;
  /** No message that may change the variables was sent since the last `execute`. */
  readonly unchangedSinceExecution: boolean;
  /** The listing, sorted by name. */
  sortedListing(): VariableInfo[];
  post(message: HostMessage): void;
}

/** Messages after which the variables may differ from the last listing. */
const changesVariables = new Set<HostMessage['type']>([
  'restore',
  'execute',
  'set',
  'restore-variables',
]);

/** How to start a worker (see {@link startSesWorker}). */
export interface SesWorkerStart {
  readonly pool: WorkerPool;
  readonly memoryMb: number;
  readonly maxOutputChars: number;
  /** The setup, less the output buffer the worker gets. */
  readonly setup: Omit<WorkerSetup, 'outputBuffer'>;
  /** The variables the worker starts with. */
  readonly variables: readonly VariableRecord[];
  readonly onMessage: (worker: SesWorker, message: WorkerMessage) => void;
  readonly onFailure: (worker: SesWorker, error: Error) => void;
  /** Whether the worker keeps the process alive from the start. */
  readonly referenced: boolean;
}

/**
 * Takes a worker from the pool, sets it up and restores `variables` into it; once it is ready,
 * a spare starts for the next sandbox (or restart).
 */
export function startSesWorker(start: SesWorkerStart): SesWorker {
  const output = OutputBuffer.create(start.maxOutputChars);
  const setup: WorkerSetup = { ...start.setup, outputBuffer: output.buffer };
  const { pool, memoryMb } = start;
  const starting = pool.takeStarting<string[]>(memoryMb);
  const { worker } = starting;
  /** Messages sent that may change the variables, and that count when the last `execute` was. */
  let changesSent = 0;
  let changesAtExecute = -1;
  const state: SesWorker = {
    ...starting,
    output,
    listing: new Map(),
    applyListing(changes) {
      for (const name of changes.removed) state.listing.delete(name);
      for (const info of changes.changed) state.listing.set(info.name, info);
    },
    get unchangedSinceExecution() {
      return changesSent === changesAtExecute;
    },
    sortedListing: () => [...state.listing.values()].sort((a, b) => compareNames(a.name, b.name)),
    post: (message) => {
      if (changesVariables.has(message.type)) {
        changesSent += 1;
        if (message.type === 'execute') changesAtExecute = changesSent;
      }
      worker.postMessage(message);
    },
  };
  worker.on('message', (message: WorkerMessage) => start.onMessage(state, message));
  worker.on('error', (error) => start.onFailure(state, error));
  worker.on('exit', (code) => start.onFailure(state, new Error(`it exited with code ${code}`)));
  if (start.referenced) worker.ref();
  worker.postMessage({ type: 'setup', setup } satisfies WorkerSetupMessage);
  state.post({ type: 'restore', variables: start.variables });
  return state;
}
