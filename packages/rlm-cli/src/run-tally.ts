import type { RlmEvent, RunUsage } from '@rlm/core';

/** What a run had done when it ended, counted from its events. */
export interface RunTallySnapshot {
  /** Root iterations started. */
  readonly iterations: number;
  /** Deepest call depth seen (0 = only the root ran). */
  readonly depthReached: number;
  /** Tokens of every model call that returned, at every depth; cache fields only when reported. */
  readonly usage: RunUsage;
  /** Milliseconds since the tally was created. */
  readonly durationMs: number;
}

/**
 * Counts a run's progress from its events, so that a failed run can still report what it
 * spent (a `final` event carries the totals only for runs that answer). Feed it every event
 * of one query, at every depth, in order.
 */
export class RunTally {
  readonly #started = performance.now();
  #iterations = 0;
  #depthReached = 0;
  #inputTokens = 0;
  #outputTokens = 0;
  #cacheReadTokens: number | undefined;
  #cacheWriteTokens: number | undefined;
  #modelCalls = 0;

  /** Takes one event into account. */
  observe(event: RlmEvent): void {
    this.#depthReached = Math.max(this.#depthReached, event.depth);
    if (event.type === 'step-start' && event.depth === 0) {
      this.#iterations = Math.max(this.#iterations, event.iteration);
    } else if (event.type === 'usage') {
      const { usage } = event;
      this.#inputTokens += usage.inputTokens;
      this.#outputTokens += usage.outputTokens;
      if (usage.cacheReadTokens !== undefined) {
        this.#cacheReadTokens = (this.#cacheReadTokens ?? 0) + usage.cacheReadTokens;
      }
      if (usage.cacheWriteTokens !== undefined) {
        this.#cacheWriteTokens = (this.#cacheWriteTokens ?? 0) + usage.cacheWriteTokens;
      }
      this.#modelCalls = Math.max(this.#modelCalls, event.modelCalls);
    }
  }

  /** The counts so far. */
  snapshot(): RunTallySnapshot {
    return {
      iterations: this.#iterations,
      depthReached: this.#depthReached,
      usage: {
        inputTokens: this.#inputTokens,
        outputTokens: this.#outputTokens,
        ...(this.#cacheReadTokens === undefined ? {} : { cacheReadTokens: this.#cacheReadTokens }),
        ...(this.#cacheWriteTokens === undefined
          ? {}
          : { cacheWriteTokens: this.#cacheWriteTokens }),
        modelCalls: this.#modelCalls,
      },
      durationMs: Math.round(performance.now() - this.#started),
    };
  }
}
