import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { LanguageModel } from '@rlm/core';
import { aroundModelCalls } from '../rlm/around-model-calls.js';

/** How long no model call starts or ends, one pending, before the process counts as at rest. */
export const restAfterMs = 300;

let collectGarbage: (() => void) | undefined;
let pending = 0;
let restTimer: NodeJS.Timeout | undefined;

function limitYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * Keeps the `rlm` process small while it waits for models (issue 31's memory at rest). Call it
 * first, before the rest of the CLI loads and before any worker starts:
 * - V8's young generation stays at its starting size (a 1 MiB semi-space) in every isolate of
 *   the process, the host and its sandbox workers. V8 otherwise grows it to 16 MiB a semi-space
 *   under the short-lived objects of a run's steps and keeps those pages. A process cannot give
 *   itself `--max-semi-space-size`, but V8 reads the growth factor each time the space would
 *   grow, so it is set at run time; a worker thread's start resets V8's flags (Node 20), so it
 *   is set again once each worker is online.
 * - It takes V8's `gc` for {@link collectAtRest}: `--expose-gc` is on only while one new context
 *   is made, before any worker exists, so no other context (and no model code) sees `gc`.
 */
export function keepMemoryLow(): void {
  limitYoungGeneration();
  process.on('worker', (worker) => worker.once('online', limitYoungGeneration));
  setFlagsFromString('--expose-gc');
  try {
    collectGarbage = runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

function onModelActivity(): void {
  clearTimeout(restTimer);
  restTimer = undefined;
  if (pending === 0 || collectGarbage === undefined) return;
  restTimer = setTimeout(() => {
    restTimer = undefined;
    // Compacting: a collection alone frees only the pages it empties, and a run's steps leave
    // live objects spread over most of them (measured: 39 MiB committed before and after, for 14
    // MiB live).
    setFlagsFromString('--compact-on-every-full-gc');
    try {
      collectGarbage?.();
    } finally {
      setFlagsFromString('--no-compact-on-every-full-gc');
    }
  }, restAfterMs);
  restTimer.unref();
}

/**
 * `model`, collecting the host's garbage once the process is at rest: a model call pending and
 * none started or ended for {@link restAfterMs}. The heap then gives back the pages a run's
 * steps filled (a 200-step run's old space held 40 MiB for 14 MiB live), while the process has
 * nothing else to do; a busy process (calls starting and ending, as in `rlm serve` or a fan-out)
 * is never collected this way. Without {@link keepMemoryLow} first, `model` as it is.
 */
export function collectAtRest(model: LanguageModel): LanguageModel {
  if (collectGarbage === undefined) return model;
  return aroundModelCalls(model, (generate) => async (request, options) => {
    pending++;
    onModelActivity();
    try {
      return await generate(request, options);
    } finally {
      pending--;
      onModelActivity();
    }
  });
}
