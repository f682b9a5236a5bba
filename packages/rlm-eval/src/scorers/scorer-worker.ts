import { parentPort, workerData } from 'node:worker_threads';

/**
 * The worker thread a custom scorer module runs in (see `loadScorerModule`): it imports the
 * module, says whether it found a scorer, then answers one `score` message at a time.
 */

type ScoreFunction = (input: unknown) => unknown;

const port = parentPort!;
// A scorer's stray rejection must not end the worker (and every later score with it).
process.on('unhandledRejection', () => {});

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function pickScorer(module: Record<string, unknown>): ScoreFunction | undefined {
  const candidate = module.default;
  if (typeof candidate === 'function') return candidate as ScoreFunction;
  if (typeof module.score === 'function') return module.score as ScoreFunction;
  if (typeof candidate === 'object' && candidate !== null) {
    const method = (candidate as { score?: unknown }).score;
    if (typeof method === 'function') return (input) => method.call(candidate, input);
  }
  return undefined;
}

let score: ScoreFunction | undefined;
try {
  score = pickScorer(await import((workerData as { moduleUrl: string }).moduleUrl));
  port.postMessage(
    score === undefined
      ? {
          type: 'load-error',
          message:
            'it exports no scorer: export default a function (input) => number | boolean | { score, note }',
        }
      : { type: 'ready' },
  );
} catch (error) {
  port.postMessage({ type: 'load-error', message: `it does not load: ${describe(error)}` });
}

port.on('message', async (message: { readonly seq: number; readonly input: unknown }) => {
  try {
    const value = await score!(message.input);
    try {
      port.postMessage({ type: 'result', seq: message.seq, value });
    } catch {
      port.postMessage({
        type: 'error',
        seq: message.seq,
        message: 'it returned a value that is not plain data',
      });
    }
  } catch (error) {
    port.postMessage({ type: 'error', seq: message.seq, message: `it threw ${describe(error)}` });
  }
});
