import type { Message } from '@rlm/core';
import type { TraceCall, TraceModelCall } from './trace-document.js';

/** A model call's whole request, as the model was asked. */
export interface ExpandedRequest {
  readonly system: string;
  readonly messages: readonly Message[];
}

/** The whole requests of one call's model calls, its steps' and its forced final prompt's. */
export interface ExpandedCallRequests {
  /** By position in `call.steps`; `undefined` for a step without a recorded model call. */
  readonly steps: readonly (ExpandedRequest | undefined)[];
  readonly extract?: ExpandedRequest;
}

/**
 * Gives back the whole requests of a call's step model calls (see {@link TraceModelCall}: each
 * keeps the leading messages of the previous one and adds its own). A host call's model calls
 * are whole already.
 *
 * Self-contained (no imports at run time, no reference outside its body): the HTML viewer
 * inlines it with `Function.prototype.toString`.
 */
export function expandModelCalls(call: TraceCall): ExpandedCallRequests {
  let previous: ExpandedRequest = { system: '', messages: [] };
  const expand = (modelCall: TraceModelCall): ExpandedRequest => {
    const kept = previous.messages.slice(0, modelCall.keptMessages ?? 0);
    previous = {
      system: modelCall.system ?? previous.system,
      messages: kept.concat(modelCall.messages),
    };
    return previous;
  };
  const steps = call.steps.map((step) => (step.modelCall ? expand(step.modelCall) : undefined));
  return call.extract ? { steps, extract: expand(call.extract) } : { steps };
}
