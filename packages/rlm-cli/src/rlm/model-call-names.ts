import type { ModelRetryEvent, RlmEvent } from '@rlm/core';

/**
 * Names the model call a `model-retry` event is for, from the run's events before it: a step
 * (`step 3`), a host call's (`llm_query in step 2`), in a `sub_rlm` child (`step 1 of the sub_rlm
 * at depth 1`). Feed it every event of the run with {@link ModelCallNames.observe}.
 */
export class ModelCallNames {
  /** The latest step of each call. */
  readonly #steps = new Map<string, number>();
  /** The name of each host call, by request id. */
  readonly #hostCalls = new Map<string, string>();

  observe(event: RlmEvent): void {
    if (event.type === 'step-start') this.#steps.set(event.callId, event.iteration);
    else if (event.type === 'bridge-call') this.#hostCalls.set(event.requestId, event.name);
    else if (event.type === 'bridge-result') this.#hostCalls.delete(event.requestId);
    else if (event.type === 'final' || event.type === 'call-error')
      this.#steps.delete(event.callId);
  }

  /** What `event` retries, e.g. `llm_query in step 2`. */
  nameOf(event: ModelRetryEvent): string {
    const step = this.#steps.get(event.callId);
    const where = `${step === undefined ? 'the first step' : `step ${step}`}${event.depth > 0 ? ` of the sub_rlm at depth ${event.depth}` : ''}`;
    if (event.requestId === undefined) return where;
    return `${this.#hostCalls.get(event.requestId) ?? 'a host call'} in ${where}`;
  }
}
