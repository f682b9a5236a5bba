import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ScorerModuleError } from '../errors/scorer-module-error.js';
import { type ScoreInput, type ScoreOutcome, type Scorer, toScoreOutcome } from './scorer.js';

/** Settings of {@link loadScorerModule}. */
export interface ScorerModuleSettings {
  /**
   * Milliseconds one score may take; past it the worker is stopped, the item marked
   * `timed-out`, and a fresh worker serves the next item. Default 10,000.
   */
  readonly timeoutMs?: number;
  /** Milliseconds the module may take to load in a new worker. Default 30,000. */
  readonly loadTimeoutMs?: number;
  /** The worker script; default the `scorer-worker.js` built beside this module. */
  readonly workerUrl?: URL;
}

/** A scorer module loaded in its worker thread; dispose it to stop the thread. */
export interface ModuleScorer extends Scorer, AsyncDisposable {
  /** Stops the worker thread. Idempotent. */
  close(): Promise<void>;
}

type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'load-error'; readonly message: string }
  | { readonly type: 'result'; readonly seq: number; readonly value: unknown }
  | { readonly type: 'error'; readonly seq: number; readonly message: string };

/**
 * Loads a custom scorer module (`--scorer ./my-scorer.mjs`): its default export (or its
 * `score` export) is a {@link ScorerFunction}. The module runs in a worker thread, so that a
 * scorer that loops forever is stopped at `timeoutMs` and the item marked `timed-out`; one that
 * throws marks that item `threw`; one that returns something else than a score marks it
 * `invalid`. Scores are taken one at a time. Rejects with {@link ScorerModuleError} when the
 * module does not load or exports no function.
 */
export async function loadScorerModule(
  file: string,
  settings: ScorerModuleSettings = {},
): Promise<ModuleScorer> {
  const timeoutMs = settings.timeoutMs ?? 10_000;
  const moduleUrl = pathToFileURL(path.resolve(file)).href;
  const workerUrl = settings.workerUrl ?? new URL('./scorer-worker.js', import.meta.url);
  const limits = { timeoutMs, loadTimeoutMs: settings.loadTimeoutMs ?? 30_000 };
  const start = () => startScorerWorker(workerUrl, moduleUrl, limits, file);
  let worker: Promise<ScorerWorker> | undefined = start();
  await worker;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  const close = async () => {
    closed = true;
    const running = worker;
    worker = undefined;
    if (running) await (await running.catch(() => undefined))?.stop();
  };
  return {
    name: file,
    score(input: ScoreInput): Promise<ScoreOutcome> {
      const turn = queue.then(async (): Promise<ScoreOutcome> => {
        if (closed) return threw('the scorer was closed');
        worker ??= start();
        let current: ScorerWorker;
        try {
          current = await worker;
        } catch (error) {
          worker = undefined;
          return threw((error as Error).message);
        }
        const reply = await current.score(input);
        if (reply.kind === 'value') return toScoreOutcome(reply.value);
        // A worker that timed out or died is replaced for the next item.
        if (reply.kind !== 'threw') worker = undefined;
        return {
          score: null,
          failure: {
            kind: reply.kind === 'timed-out' ? 'timed-out' : 'threw',
            message: reply.message,
          },
        };
      });
      queue = turn;
      return turn;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

function threw(message: string): ScoreOutcome {
  return { score: null, failure: { kind: 'threw', message } };
}

type WorkerAnswer =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'threw' | 'timed-out' | 'died'; readonly message: string };

interface ScorerWorker {
  score(input: ScoreInput): Promise<WorkerAnswer>;
  stop(): Promise<void>;
}

/** Starts a worker on the module; resolves once it has found the scorer. */
function startScorerWorker(
  workerUrl: URL,
  moduleUrl: string,
  limits: { readonly timeoutMs: number; readonly loadTimeoutMs: number },
  file: string,
): Promise<ScorerWorker> {
  const { timeoutMs, loadTimeoutMs } = limits;
  const worker = new Worker(workerUrl, {
    workerData: { moduleUrl },
    resourceLimits: { maxOldGenerationSizeMb: 512 },
    stdout: false,
    stderr: false,
  });
  let seq = 0;
  let pending:
    | { readonly seq: number; readonly settle: (answer: WorkerAnswer) => void }
    | undefined;
  let exited = false;
  const stop = async () => {
    if (!exited) await worker.terminate();
  };
  return new Promise<ScorerWorker>((resolve, reject) => {
    const fail = (message: string) => {
      reject(new ScorerModuleError(`@rlm/eval: the scorer module ${file}: ${message}`, { file }));
      void stop();
    };
    const loadTimer = setTimeout(
      () => fail(`did not load within ${loadTimeoutMs} ms; check what it runs at import`),
      loadTimeoutMs,
    );
    worker.on('error', (error) => {
      pending?.settle({ kind: 'died', message: `its worker failed: ${error.message}` });
      pending = undefined;
      clearTimeout(loadTimer);
      fail(`its worker failed: ${error.message}`);
    });
    worker.on('exit', (code) => {
      exited = true;
      pending?.settle({ kind: 'died', message: `its worker exited (code ${code})` });
      pending = undefined;
      clearTimeout(loadTimer);
      fail(`its worker exited (code ${code}) while loading`);
    });
    worker.on('message', (reply: WorkerReply) => {
      if (reply.type === 'ready') {
        clearTimeout(loadTimer);
        resolve({
          score(input) {
            return new Promise<WorkerAnswer>((settle) => {
              const current = ++seq;
              const timer = setTimeout(() => {
                if (pending?.seq !== current) return;
                pending = undefined;
                settle({
                  kind: 'timed-out',
                  message: `the scorer took longer than ${timeoutMs} ms; it was stopped`,
                });
                void stop();
              }, timeoutMs);
              pending = {
                seq: current,
                settle: (answer) => {
                  clearTimeout(timer);
                  settle(answer);
                },
              };
              try {
                worker.postMessage({ seq: current, input });
              } catch (error) {
                pending = undefined;
                clearTimeout(timer);
                settle({ kind: 'threw', message: `its input could not be sent: ${String(error)}` });
              }
            });
          },
          stop,
        });
      } else if (reply.type === 'load-error') {
        clearTimeout(loadTimer);
        fail(reply.message);
      } else if (pending?.seq === reply.seq) {
        const { settle } = pending;
        pending = undefined;
        settle(
          reply.type === 'result'
            ? { kind: 'value', value: reply.value }
            : { kind: 'threw', message: `the scorer failed: ${reply.message}` },
        );
      }
    });
  });
}
