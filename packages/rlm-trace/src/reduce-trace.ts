import { eventExcerpt, type Message, type RlmEvent } from '@rlm/core';
import { type ExpandedRequest, expandModelCalls } from './expand-model-calls.js';

import {
  type TraceCall,
  type TraceDocument,
  type TraceFinal,
  type TraceHostCall,
  type TraceModelCall,
  type TraceRetries,
  type TraceStep,
  type TraceWarning,
  traceSchema,
} from './trace-document.js';
import { addModelCall, emptyUsage } from './trace-usage.js';

/** Characters of an answer a trace keeps. */
export const answerExcerptChars = 4000;

/** The trace of a run that has not started yet. */
export function createTrace(options: {
  /** See {@link TraceDocument.runId}. */
  readonly runId: string;
  /** Milliseconds since the epoch. */
  readonly startedAt: number;
  readonly metadata?: Readonly<Record<string, unknown>>;
}): TraceDocument {
  return {
    schema: traceSchema,
    runId: options.runId,
    query: '',
    startedAt: options.startedAt,
    status: 'running',
    calls: [],
    usage: emptyUsage,
    steps: 0,
    depthReached: 0,
    metadata: options.metadata ?? {},
  };
}

/**
 * The trace after `event`. Pure: returns a new document and leaves `trace` as it was (unchanged
 * parts are shared). `receivedAt` (milliseconds since the epoch) stands in for the event's
 * own `at` when it has none. Events of unknown calls start no call and are dropped, except
 * `call-start`; events arrive in the order `queryStream` yields them.
 */
export function reduceTrace(
  trace: TraceDocument,
  event: RlmEvent,
  receivedAt: number,
): TraceDocument {
  const at = event.at ?? receivedAt;
  if (event.type === 'call-start') return startCall(trace, event, at);
  const call = findCall(trace, event.callId);
  if (call === undefined) return trace;
  switch (event.type) {
    case 'step-start': {
      const step: TraceStep = {
        iteration: event.iteration,
        startedAt: at,
        blocks: [],
        hostCalls: [],
        usage: emptyUsage,
        warnings: [],
      };
      const next = withCall(trace, { ...call, steps: [...call.steps, step] });
      return { ...next, steps: trace.steps + 1 };
    }
    case 'text':
      return withStep(trace, call, event.iteration, (step) => ({
        ...step,
        text: event.text,
        respondedAt: step.respondedAt ?? at,
      }));
    case 'code':
      return withStep(trace, call, event.iteration, (step) => ({
        ...step,
        respondedAt: step.respondedAt ?? at,
        blocks: [...step.blocks, { index: event.index, code: event.code, startedAt: at }],
      }));
    case 'execution':
      return withStep(trace, call, event.iteration, (step) => ({
        ...step,
        blocks: step.blocks.map((block) =>
          block.index === event.index
            ? {
                ...block,
                output: event.output,
                durationMs: event.durationMs,
                ...(event.error === undefined ? {} : { error: event.error }),
                ...(shownAsIs(event) ? {} : { shownToModel: event.shownToModel }),
              }
            : block,
        ),
      }));
    case 'step-complete':
      return withStep(trace, call, event.iteration, (step) => ({ ...step, endedAt: at }));
    case 'bridge-call': {
      const step = call.steps.at(-1);
      if (step === undefined) return trace;
      const hostCall: TraceHostCall = {
        requestId: event.requestId,
        name: event.name,
        startedAt: at,
        usage: emptyUsage,
        ...(event.argumentsExcerpt === undefined
          ? {}
          : { argumentsExcerpt: event.argumentsExcerpt }),
      };
      return withStep(trace, call, step.iteration, (current) => ({
        ...current,
        hostCalls: [...current.hostCalls, hostCall],
      }));
    }
    case 'bridge-result':
      return withHostCall(trace, call, event.requestId, (hostCall) => ({
        ...hostCall,
        ok: event.ok,
        durationMs: event.durationMs,
        ...(event.error === undefined ? {} : { error: event.error }),
        ...(event.resultExcerpt === undefined ? {} : { resultExcerpt: event.resultExcerpt }),
      }));
    case 'usage': {
      const withUsage: TraceDocument = {
        ...withCall(trace, {
          ...call,
          usage: addModelCall(call.usage, event.usage, event.costUsd),
        }),
        usage: addModelCall(trace.usage, event.usage, event.costUsd),
      };
      const updated = findCall(withUsage, call.callId)!;
      if (event.requestId !== undefined) {
        return withHostCall(withUsage, updated, event.requestId, (hostCall) => ({
          ...hostCall,
          usage: addModelCall(hostCall.usage, event.usage, event.costUsd),
        }));
      }
      const step = updated.steps.at(-1);
      if (step === undefined || step.endedAt !== undefined) return withUsage;
      return withStep(withUsage, updated, step.iteration, (current) => ({
        ...current,
        usage: addModelCall(current.usage, event.usage, event.costUsd),
      }));
    }
    case 'warning':
      return addWarning(trace, call, { at, code: event.code, message: event.message });
    case 'variable-sync-failed':
      return addWarning(trace, call, {
        at,
        code: 'variable-sync-failed',
        message: `listing the sandbox's variables failed (${event.reason}, ${event.retries} retries): ${event.message}`,
      });
    case 'model-retry': {
      const warned = addWarning(trace, call, {
        at,
        code: 'model-retry',
        message: `the API ${event.detail}; retried after ${event.delayMs} ms (attempt ${event.attempt} of ${event.maxAttempts})`,
      });
      const updated = findCall(warned, call.callId)!;
      const delayMs = Number.isFinite(event.delayMs) ? Math.max(0, event.delayMs) : 0;
      if (event.requestId !== undefined) {
        return withHostCall(warned, updated, event.requestId, (hostCall) => ({
          ...hostCall,
          retries: addRetry(hostCall.retries, delayMs, at),
        }));
      }
      const step = updated.steps.at(-1);
      if (step === undefined || step.endedAt !== undefined) return warned;
      return withStep(warned, updated, step.iteration, (current) => ({
        ...current,
        retries: addRetry(current.retries, delayMs, at),
      }));
    }
    case 'model-call':
      return recordModelCall(trace, call, event, at);
    case 'checkpoint':
      return withStep(trace, call, event.iteration, (step) => ({
        ...step,
        checkpoint: { at, checkpointId: event.checkpointId, durationMs: event.durationMs },
      }));
    case 'resumed':
      return withCall(trace, {
        ...call,
        resumed: { iteration: event.iteration, restored: event.restored, lost: event.lost },
      });
    case 'final': {
      const final: TraceFinal = {
        at,
        source: event.source,
        answerExcerpt: eventExcerpt(event.answer, answerExcerptChars),
        ...(event.artifact ? { artifactId: event.artifact.id } : {}),
      };
      const lastStep = call.steps.at(-1);
      const ended: TraceCall = {
        ...call,
        status: 'answered',
        endedAt: at,
        final,
        steps:
          lastStep !== undefined && lastStep.iteration === event.iterations
            ? [...call.steps.slice(0, -1), { ...lastStep, final, endedAt: lastStep.endedAt ?? at }]
            : call.steps,
      };
      const next = withCall(trace, ended);
      return call.callId === trace.rootCallId
        ? { ...next, status: 'answered', endedAt: at, final }
        : next;
    }
    case 'call-error': {
      const error = { name: event.errorName, message: event.message };
      const next = withCall(trace, { ...call, status: 'failed', endedAt: at, error });
      return call.callId === trace.rootCallId
        ? { ...next, status: 'failed', endedAt: at, error }
        : next;
    }
    case 'text-delta':
    case 'variables-updated':
    // Durable-tool activity and the concurrency level are progress for the terminal; the trace
    // keeps the host calls, and the 429s as model-retry warnings.
    case 'durable-tool':
    case 'concurrency':
      return trace;
  }
}

/**
 * Marks a run as ended: the time, and for a run still `running` (its stream threw before the
 * root's own `final` or `call-error`, e.g. an abort) `failed` with `error`. Calls still running
 * stay `running`: their end was never seen. Pure, like {@link reduceTrace}.
 */
export function finishTrace(
  trace: TraceDocument,
  outcome: { readonly error?: { readonly name: string; readonly message: string } },
  at: number,
): TraceDocument {
  if (trace.status !== 'running')
    return trace.endedAt === undefined ? { ...trace, endedAt: at } : trace;
  const error = outcome.error ?? { name: 'Error', message: 'the run ended without an answer' };
  return { ...trace, status: 'failed', endedAt: at, error };
}

function startCall(
  trace: TraceDocument,
  event: Extract<RlmEvent, { type: 'call-start' }>,
  at: number,
): TraceDocument {
  const call: TraceCall = {
    callId: event.callId,
    depth: event.depth,
    query: event.query,
    startedAt: at,
    status: 'running',
    steps: [],
    childCallIds: [],
    warnings: [],
    usage: emptyUsage,
    ...(event.parentCallId === undefined ? {} : { parentCallId: event.parentCallId }),
  };
  const parent = event.parentCallId === undefined ? undefined : findCall(trace, event.parentCallId);
  if (parent === undefined) {
    if (trace.rootCallId !== undefined) return withCall(trace, call);
    return {
      ...trace,
      query: event.query,
      rootCallId: event.callId,
      calls: [call, ...trace.calls],
    };
  }
  // The parent's host calls start children in order: the child belongs to the oldest
  // pending `sub_rlm` that has none yet.
  let linked: TraceHostCall | undefined;
  for (const step of parent.steps) {
    linked = step.hostCalls.find(
      (hostCall) =>
        hostCall.name === 'sub_rlm' &&
        hostCall.ok === undefined &&
        hostCall.childCallId === undefined,
    );
    if (linked) break;
  }
  const withChild = withCall(trace, {
    ...(linked ? { ...call, parentRequestId: linked.requestId } : call),
  });
  const withParent = withCall(withChild, {
    ...parent,
    childCallIds: [...parent.childCallIds, call.callId],
  });
  const deeper = { ...withParent, depthReached: Math.max(trace.depthReached, event.depth) };
  if (!linked) return deeper;
  return withHostCall(
    deeper,
    findCall(withParent, parent.callId)!,
    linked.requestId,
    (hostCall) => ({
      ...hostCall,
      childCallId: call.callId,
    }),
  );
}

/**
 * The call `callId` of `trace`, or `undefined`. Searches the newest calls first, so looking up
 * a recent call is fast.
 */
export function findCall(trace: TraceDocument, callId: string): TraceCall | undefined {
  return trace.calls.findLast((call) => call.callId === callId);
}

/** Replaces the call with the same id, or appends it as the newest. */
function withCall(trace: TraceDocument, call: TraceCall): TraceDocument {
  const at = trace.calls.findLastIndex((existing) => existing.callId === call.callId);
  const calls = trace.calls.slice();
  if (at < 0) calls.push(call);
  else calls[at] = call;
  return { ...trace, calls };
}

/** Replaces the newest step with `iteration` (the last one, except after odd resumes). */
function withStep(
  trace: TraceDocument,
  call: TraceCall,
  iteration: number,
  update: (step: TraceStep) => TraceStep,
): TraceDocument {
  const at = call.steps.findLastIndex((step) => step.iteration === iteration);
  if (at < 0) return trace;
  const steps = call.steps.slice();
  steps[at] = update(steps[at]!);
  return withCall(trace, { ...call, steps });
}

/** Replaces the host call `requestId`, searching the newest steps first. */
function withHostCall(
  trace: TraceDocument,
  call: TraceCall,
  requestId: string,
  update: (hostCall: TraceHostCall) => TraceHostCall,
): TraceDocument {
  for (let index = call.steps.length - 1; index >= 0; index--) {
    const step = call.steps[index]!;
    const position = step.hostCalls.findIndex((hostCall) => hostCall.requestId === requestId);
    if (position < 0) continue;
    const hostCalls = step.hostCalls.slice();
    hostCalls[position] = update(hostCalls[position]!);
    const steps = call.steps.slice();
    steps[index] = { ...step, hostCalls };
    return withCall(trace, { ...call, steps });
  }
  return trace;
}

function addWarning(trace: TraceDocument, call: TraceCall, warning: TraceWarning): TraceDocument {
  const step = call.steps.at(-1);
  if (step !== undefined && step.endedAt === undefined && call.status === 'running') {
    return withStep(trace, call, step.iteration, (current) => ({
      ...current,
      warnings: [...current.warnings, warning],
    }));
  }
  return withCall(trace, { ...call, warnings: [...call.warnings, warning] });
}

/** Retries so far plus one, announced at `at`, that waited `delayMs`. */
function addRetry(retries: TraceRetries | undefined, delayMs: number, at: number): TraceRetries {
  return {
    count: (retries?.count ?? 0) + 1,
    waitMs: (retries?.waitMs ?? 0) + delayMs,
    lastAttemptAt: at + delayMs,
  };
}

/** Whole requests of step model calls recorded by this module, so a difference is cheap. */
const expandedRequests = new WeakMap<TraceModelCall, ExpandedRequest>();

/**
 * Keeps a model call: a host call's whole, on that host call; a step's (or the forced final
 * prompt's) as its difference from the call's previous step request, on the step (or the call).
 */
function recordModelCall(
  trace: TraceDocument,
  call: TraceCall,
  event: Extract<RlmEvent, { type: 'model-call' }>,
  at: number,
): TraceDocument {
  const { request, response } = event;
  const common = {
    at,
    durationMs: event.durationMs,
    modelId: event.modelId,
    ...(request.tools === undefined ? {} : { tools: request.tools }),
    ...(request.toolChoice === undefined ? {} : { toolChoice: request.toolChoice }),
    ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
    response,
  };
  if (event.requestId !== undefined) {
    const modelCall: TraceModelCall = {
      ...common,
      system: request.system,
      messages: request.messages,
    };
    return withHostCall(trace, call, event.requestId, (hostCall) => ({
      ...hostCall,
      modelCalls: [...(hostCall.modelCalls ?? []), modelCall],
    }));
  }
  const previous = previousStepRequest(call);
  const kept = previous === undefined ? 0 : sharedStart(previous.messages, request.messages);
  const modelCall: TraceModelCall = {
    ...common,
    ...(previous?.system === request.system ? {} : { system: request.system }),
    ...(kept > 0 ? { keptMessages: kept } : {}),
    messages: request.messages.slice(kept),
  };
  expandedRequests.set(modelCall, { system: request.system, messages: request.messages });
  const step = call.steps.findLast((candidate) => candidate.iteration === event.iteration);
  if (step !== undefined && step.modelCall === undefined && step.endedAt === undefined) {
    return withStep(trace, call, event.iteration, (current) => ({ ...current, modelCall }));
  }
  return withCall(trace, { ...call, extract: modelCall });
}

/** The whole request of the call's newest step model call, if any. */
function previousStepRequest(call: TraceCall): ExpandedRequest | undefined {
  const position = call.steps.findLastIndex((step) => step.modelCall !== undefined);
  if (position < 0) return undefined;
  const modelCall = call.steps[position]!.modelCall!;
  return expandedRequests.get(modelCall) ?? expandModelCalls(call).steps[position];
}

/** How many leading messages `a` and `b` share. */
function sharedStart(a: readonly Message[], b: readonly Message[]): number {
  let count = 0;
  while (count < a.length && count < b.length && sameMessage(a[count]!, b[count]!)) count++;
  return count;
}

function sameMessage(a: Message, b: Message): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** Whether the model was shown the block's output and error as they are (nothing cut). */
function shownAsIs(event: Extract<RlmEvent, { type: 'execution' }>): boolean {
  const { output, error, shownToModel } = event;
  if (error === undefined) return shownToModel === output;
  return [error, `Error: ${error}`].some(
    (errorText) => shownToModel === (output.length > 0 ? `${output}\n${errorText}` : errorText),
  );
}
