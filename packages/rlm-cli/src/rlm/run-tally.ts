import {
  addModelCallUsage,
  type CallUsage,
  emptyRunUsage,
  type RlmEvent,
  type RunUsage,
} from '@rlm/core';
import type { RunSpent } from '../output/json-failure-report.js';

/**
 * Counts a run's progress from its events, so that a failed run can still report what it
 * spent (a `final` event carries the totals only for runs that answer). Feed it every event
 * of one query, at every depth, in order.
 */
export class RunTally {
  readonly #started = performance.now();
  #iterations = 0;
  #depthReached = 0;
  #usage: RunUsage = emptyRunUsage();
  #modelCalls = 0;
  #subCalls = 0;
  #callUsage: readonly CallUsage[] = [];

  /** Takes one event into account. */
  observe(event: RlmEvent): void {
    this.#depthReached = Math.max(this.#depthReached, event.depth);
    if (event.type === 'step-start' && event.depth === 0) {
      this.#iterations = Math.max(this.#iterations, event.iteration);
    } else if (event.type === 'usage') {
      this.#usage = addModelCallUsage(this.#usage, event.usage, event.costUsd);
      this.#modelCalls = Math.max(this.#modelCalls, event.modelCalls);
      if (event.depth > 0 || event.requestId !== undefined) this.#subCalls++;
    } else if (event.type === 'call-error' && event.depth === 0 && event.callUsage) {
      this.#callUsage = event.callUsage;
    }
  }

  /**
   * Model calls made below the root loop so far: the steps of `sub_rlm` children and the calls
   * serving `llm_query` and other host requests.
   */
  get subCalls(): number {
    return this.#subCalls;
  }

  /** The counts so far. */
  snapshot(): RunSpent {
    return {
      iterations: this.#iterations,
      depthReached: this.#depthReached,
      usage: { ...this.#usage, modelCalls: this.#modelCalls },
      callUsage: this.#callUsage,
      durationMs: Math.round(performance.now() - this.#started),
    };
  }
}
