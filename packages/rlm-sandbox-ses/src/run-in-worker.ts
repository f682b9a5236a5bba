/**
 * One execution in a worker, watched from the host: its time (busy time, not time spent in
 * host calls), its memory, and its abort signal, until the worker reports it executed or a
 * watch faults it.
 */
import { ExecutionClock, watchExecutionTime } from '@rlm/core/sandbox-support';
import type { SesWorker } from './ses-worker.js';
import { type MemoryWatch, watchWorkerMemory } from './watch-worker-memory.js';

/** How an execution ended, seen from the host. */
export type Outcome =
  | {
      readonly kind: 'executed';
      readonly error: string | undefined;
      readonly arrayBufferBytes: number;
    }
  | { readonly kind: 'fault'; readonly reason: string }
  | { readonly kind: 'disposed' };

/** An execution under way, as the sandbox's message routing reaches it. */
export interface RunningExecution {
  readonly id: number;
  readonly clock: ExecutionClock;
  readonly memory: MemoryWatch;
  /** Ends the execution; the first call wins. */
  finish(outcome: Outcome): void;
}

/** What one execution may use. */
export interface ExecutionBounds {
  readonly timeoutMs: number;
  readonly hostWaitMs: number;
  readonly memoryLimitBytes: number;
  /** The fault reported past the memory limit. */
  readonly memoryFault: string;
  readonly signal?: AbortSignal;
}

/**
 * Runs `code` as execution `id` in `worker`, which answers the `list` request `listingId` once
 * idle after it; `started` gets the running execution (for the
 * worker's messages and host calls) before any of them can come. Resolves with its outcome, the
 * watches stopped.
 */
export async function runInWorker(
  worker: SesWorker,
  id: number,
  code: string,
  listingId: number,
  bounds: ExecutionBounds,
  started: (execution: RunningExecution) => void,
): Promise<Outcome> {
  const cleanups: (() => void)[] = [];
  const outcome = await new Promise<Outcome>((finish) => {
    const { performance: workerPerformance } = worker.worker;
    const clock = new ExecutionClock(
      () => performance.now(),
      () => workerPerformance.eventLoopUtilization().active,
    );
    const { timeoutMs, hostWaitMs, signal } = bounds;
    cleanups.push(
      watchExecutionTime(clock, { timeoutMs, hostWaitMs }, (reason) =>
        finish({ kind: 'fault', reason }),
      ),
    );
    if (signal) {
      const onAbort = () => finish({ kind: 'fault', reason: 'Execution aborted' });
      signal.addEventListener('abort', onAbort, { once: true });
      cleanups.push(() => signal.removeEventListener('abort', onAbort));
    }
    // A worker held by code an earlier execution left running never resets it.
    worker.output.reset();
    worker.post({ type: 'execute', id, code, listingId });
    // The memory baseline (reading /proc) is taken while the worker starts on the code, not
    // before it is sent; the worker's answers come in later tasks, once `started` has run.
    const memory = watchWorkerMemory(
      bounds.memoryLimitBytes,
      () => worker.post({ type: 'probe' }),
      () => finish({ kind: 'fault', reason: bounds.memoryFault }),
    );
    cleanups.push(memory.stop);
    started({ id, clock, memory, finish });
  });
  for (const cleanup of cleanups) cleanup();
  return outcome;
}
