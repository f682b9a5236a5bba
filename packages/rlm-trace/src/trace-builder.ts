import { eventExcerpt, type Message, type RlmEvent } from '@rlm/core';
import { type ExpandedRequest, expandModelCalls } from './expand-model-calls.js';
import {
  type TraceBlock,
  type TraceCall,
  type TraceDocument,
  type TraceFinal,
  type TraceHostCall,
  type TraceModelCall,
  type TraceRetries,
  type TraceStep,
  type TraceUsage,
  type TraceWarning,
  traceSchema,
} from './trace-document.js';
import { addModelCall, emptyUsage } from './trace-usage.js';

/** Characters of an answer a trace keeps. */
export const answerExcerptChars = 4000;

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** A host call being built: changed in place as its result and usage arrive. */
type HostCallDraft = Writable<TraceHostCall>;

/** A step being built: its lists grow in place. */
interface StepDraft extends Writable<Omit<TraceStep, 'blocks' | 'hostCalls' | 'warnings'>> {
  blocks: TraceBlock[];
  hostCalls: HostCallDraft[];
  warnings: TraceWarning[];
}

/** A call being built: its lists grow in place. */
interface CallDraft extends Writable<Omit<TraceCall, 'steps' | 'childCallIds' | 'warnings'>> {
  steps: StepDraft[];
  childCallIds: string[];
  warnings: TraceWarning[];
}

/** A call and the indexes that make each event's update O(1) amortised. */
interface CallEntry {
  readonly draft: CallDraft;
  /** Every host call of the call, by request id. */
  readonly hostCalls: Map<string, HostCallDraft>;
  /** `sub_rlm` host calls in start order, from `linkFrom` on possibly without a child yet. */
  readonly subRlmCalls: HostCallDraft[];
  linkFrom: number;
  /**
   * The whole request of the call's newest step model call, kept so that the next one is stored
   * as a cheap difference; `undefined` until one is recorded (or after `from`: then rebuilt).
   */
  lastStepRequest?: ExpandedRequest;
}

/**
 * A run's trace built in place, event by event: each event costs O(1) amortised (indexes by call
 * id and request id), however many steps and host calls the run makes. {@link toDocument} copies
 * it out as a {@link TraceDocument}, in O(size of the trace).
 */
export class TraceBuilder {
  readonly #runId: string;
  readonly #startedAt: number;
  readonly #metadata: Readonly<Record<string, unknown>>;
  #query = '';
  #status: TraceDocument['status'] = 'running';
  #endedAt: number | undefined;
  #rootCallId: string | undefined;
  #usage: TraceUsage = emptyUsage;
  #steps = 0;
  #depthReached = 0;
  #final: TraceFinal | undefined;
  #error: TraceDocument['error'];
  /** Every call: the root first, then in start order. */
  readonly #calls: CallEntry[] = [];
  readonly #callsById = new Map<string, CallEntry>();

  constructor(options: {
    /** See {@link TraceDocument.runId}. */
    readonly runId: string;
    /** Milliseconds since the epoch. */
    readonly startedAt: number;
    readonly metadata?: Readonly<Record<string, unknown>>;
  }) {
    this.#runId = options.runId;
    this.#startedAt = options.startedAt;
    this.#metadata = options.metadata ?? {};
  }

  /** A builder that goes on from `trace` (copied: later events leave `trace` as it was). */
  static from(trace: TraceDocument): TraceBuilder {
    const builder = new TraceBuilder(trace);
    builder.#query = trace.query;
    builder.#status = trace.status;
    builder.#endedAt = trace.endedAt;
    builder.#rootCallId = trace.rootCallId;
    builder.#usage = trace.usage;
    builder.#steps = trace.steps;
    builder.#depthReached = trace.depthReached;
    builder.#final = trace.final;
    builder.#error = trace.error;
    for (const call of trace.calls) {
      const entry = builder.#addCall(copyCall(call));
      for (const step of entry.draft.steps) {
        for (const hostCall of step.hostCalls) builder.#indexHostCall(entry, hostCall);
      }
    }
    return builder;
  }

  /**
   * Adds one `queryStream` event. `receivedAt` (milliseconds since the epoch) stands in for the
   * event's own `at` when it has none. Events of unknown calls start no call and are dropped,
   * except `call-start`; events arrive in the order `queryStream` yields them.
   */
  record(event: RlmEvent, receivedAt: number): void {
    const at = event.at ?? receivedAt;
    if (event.type === 'call-start') {
      this.#startCall(event, at);
      return;
    }
    const entry = this.#callsById.get(event.callId);
    if (entry === undefined) return;
    const call = entry.draft;
    switch (event.type) {
      case 'step-start':
        call.steps.push({
          iteration: event.iteration,
          startedAt: at,
          blocks: [],
          hostCalls: [],
          usage: emptyUsage,
          warnings: [],
        });
        this.#steps += 1;
        return;
      case 'text': {
        const step = stepOf(call, event.iteration);
        if (step === undefined) return;
        step.text = event.text;
        step.respondedAt ??= at;
        return;
      }
      case 'code': {
        const step = stepOf(call, event.iteration);
        if (step === undefined) return;
        step.respondedAt ??= at;
        step.blocks.push({ index: event.index, code: event.code, startedAt: at });
        return;
      }
      case 'execution': {
        const step = stepOf(call, event.iteration);
        if (step === undefined) return;
        // A response has a few blocks (`maxCodeBlocksPerResponse`): a scan is cheap.
        step.blocks = step.blocks.map((block) =>
          block.index === event.index
            ? {
                ...block,
                output: event.output,
                durationMs: event.durationMs,
                ...(event.error === undefined ? {} : { error: event.error }),
                ...(shownAsIs(event) ? {} : { shownToModel: event.shownToModel }),
              }
            : block,
        );
        return;
      }
      case 'step-complete': {
        const step = stepOf(call, event.iteration);
        if (step !== undefined) step.endedAt = at;
        return;
      }
      case 'bridge-call': {
        const step = call.steps.at(-1);
        if (step === undefined) return;
        const hostCall: HostCallDraft = {
          requestId: event.requestId,
          name: event.name,
          startedAt: at,
          usage: emptyUsage,
        };
        if (event.argumentsExcerpt !== undefined)
          hostCall.argumentsExcerpt = event.argumentsExcerpt;
        this.#indexHostCall(entry, hostCall);
        step.hostCalls.push(hostCall);
        return;
      }
      case 'bridge-result': {
        const hostCall = entry.hostCalls.get(event.requestId);
        if (hostCall === undefined) return;
        hostCall.ok = event.ok;
        hostCall.durationMs = event.durationMs;
        if (event.error !== undefined) hostCall.error = event.error;
        if (event.resultExcerpt !== undefined) hostCall.resultExcerpt = event.resultExcerpt;
        return;
      }
      case 'usage': {
        call.usage = addModelCall(call.usage, event.usage, event.costUsd);
        this.#usage = addModelCall(this.#usage, event.usage, event.costUsd);
        if (event.requestId !== undefined) {
          const hostCall = entry.hostCalls.get(event.requestId);
          if (hostCall !== undefined) {
            hostCall.usage = addModelCall(hostCall.usage, event.usage, event.costUsd);
          }
          return;
        }
        const step = call.steps.at(-1);
        if (step === undefined || step.endedAt !== undefined) return;
        step.usage = addModelCall(step.usage, event.usage, event.costUsd);
        return;
      }
      case 'warning':
        addWarning(call, { at, code: event.code, message: event.message });
        return;
      case 'variable-sync-failed':
        addWarning(call, {
          at,
          code: 'variable-sync-failed',
          message: `listing the sandbox's variables failed (${event.reason}, ${event.retries} retries): ${event.message}`,
        });
        return;
      case 'model-retry': {
        addWarning(call, {
          at,
          code: 'model-retry',
          message: `the API ${event.detail}; retried after ${event.delayMs} ms (attempt ${event.attempt} of ${event.maxAttempts})`,
        });
        const delayMs = Number.isFinite(event.delayMs) ? Math.max(0, event.delayMs) : 0;
        if (event.requestId !== undefined) {
          const hostCall = entry.hostCalls.get(event.requestId);
          if (hostCall !== undefined) hostCall.retries = addRetry(hostCall.retries, delayMs, at);
          return;
        }
        const step = call.steps.at(-1);
        if (step === undefined || step.endedAt !== undefined) return;
        step.retries = addRetry(step.retries, delayMs, at);
        return;
      }
      case 'model-call':
        recordModelCall(entry, event, at);
        return;
      case 'checkpoint': {
        const step = stepOf(call, event.iteration);
        if (step === undefined) return;
        step.checkpoint = { at, checkpointId: event.checkpointId, durationMs: event.durationMs };
        return;
      }
      case 'resumed':
        call.resumed = { iteration: event.iteration, restored: event.restored, lost: event.lost };
        return;
      case 'final': {
        const final: TraceFinal = {
          at,
          source: event.source,
          answerExcerpt: eventExcerpt(event.answer, answerExcerptChars),
          ...(event.artifact ? { artifactId: event.artifact.id } : {}),
        };
        call.status = 'answered';
        call.endedAt = at;
        call.final = final;
        const lastStep = call.steps.at(-1);
        if (lastStep !== undefined && lastStep.iteration === event.iterations) {
          lastStep.final = final;
          lastStep.endedAt ??= at;
        }
        if (call.callId === this.#rootCallId) {
          this.#status = 'answered';
          this.#endedAt = at;
          this.#final = final;
        }
        return;
      }
      case 'call-error': {
        const error = { name: event.errorName, message: event.message };
        call.status = 'failed';
        call.endedAt = at;
        call.error = error;
        if (call.callId === this.#rootCallId) {
          this.#status = 'failed';
          this.#endedAt = at;
          this.#error = error;
        }
        return;
      }
      case 'text-delta':
      case 'variables-updated':
      // Durable-tool activity and the concurrency level are progress for the terminal; the trace
      // keeps the host calls, and the 429s as model-retry warnings.
      case 'durable-tool':
      case 'concurrency':
        return;
    }
  }

  /**
   * Marks the run as ended: the time, and for a run still `running` (its stream threw before the
   * root's own `final` or `call-error`, e.g. an abort) `failed` with `error`. Calls still running
   * stay `running`: their end was never seen.
   */
  finish(
    outcome: { readonly error?: { readonly name: string; readonly message: string } },
    at: number,
  ): void {
    if (this.#status !== 'running') {
      this.#endedAt ??= at;
      return;
    }
    this.#status = 'failed';
    this.#endedAt = at;
    this.#error = outcome.error ?? { name: 'Error', message: 'the run ended without an answer' };
  }

  /** The trace so far as a new document that later events leave as it is. */
  toDocument(): TraceDocument {
    return {
      schema: traceSchema,
      runId: this.#runId,
      query: this.#query,
      startedAt: this.#startedAt,
      ...(this.#endedAt === undefined ? {} : { endedAt: this.#endedAt }),
      status: this.#status,
      ...(this.#rootCallId === undefined ? {} : { rootCallId: this.#rootCallId }),
      calls: this.#calls.map((entry) => copyCall(entry.draft)),
      usage: this.#usage,
      steps: this.#steps,
      depthReached: this.#depthReached,
      ...(this.#final === undefined ? {} : { final: this.#final }),
      ...(this.#error === undefined ? {} : { error: this.#error }),
      metadata: this.#metadata,
    };
  }

  #addCall(draft: CallDraft, first = false): CallEntry {
    const entry: CallEntry = { draft, hostCalls: new Map(), subRlmCalls: [], linkFrom: 0 };
    if (first) this.#calls.unshift(entry);
    else this.#calls.push(entry);
    this.#callsById.set(draft.callId, entry);
    return entry;
  }

  #indexHostCall(entry: CallEntry, hostCall: HostCallDraft): void {
    entry.hostCalls.set(hostCall.requestId, hostCall);
    if (hostCall.name === 'sub_rlm') entry.subRlmCalls.push(hostCall);
  }

  #startCall(event: Extract<RlmEvent, { type: 'call-start' }>, at: number): void {
    const draft: CallDraft = {
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
    const parent =
      event.parentCallId === undefined ? undefined : this.#callsById.get(event.parentCallId);
    if (parent === undefined) {
      if (this.#rootCallId !== undefined) {
        this.#replaceOrAdd(draft);
        return;
      }
      this.#query = event.query;
      this.#rootCallId = event.callId;
      this.#addCall(draft, true);
      return;
    }
    // The parent's host calls start children in order: the child belongs to the oldest
    // pending `sub_rlm` that has none yet.
    const linked = takeUnlinkedSubRlm(parent);
    if (linked !== undefined) {
      draft.parentRequestId = linked.requestId;
      linked.childCallId = draft.callId;
    }
    this.#replaceOrAdd(draft);
    parent.draft.childCallIds.push(draft.callId);
    this.#depthReached = Math.max(this.#depthReached, event.depth);
  }

  /** Replaces the call with the same id (a repeated `call-start`), or adds it as the newest. */
  #replaceOrAdd(draft: CallDraft): void {
    const existing = this.#callsById.get(draft.callId);
    if (existing === undefined) {
      this.#addCall(draft);
      return;
    }
    const entry: CallEntry = { draft, hostCalls: new Map(), subRlmCalls: [], linkFrom: 0 };
    this.#calls[this.#calls.lastIndexOf(existing)] = entry;
    this.#callsById.set(draft.callId, entry);
  }
}

/** The newest step with `iteration` (the last one, except after odd resumes). */
function stepOf(call: CallDraft, iteration: number): StepDraft | undefined {
  return call.steps.findLast((step) => step.iteration === iteration);
}

/** The oldest `sub_rlm` of `parent` still pending and without a child; skipped ones are passed. */
function takeUnlinkedSubRlm(parent: CallEntry): HostCallDraft | undefined {
  while (parent.linkFrom < parent.subRlmCalls.length) {
    const hostCall = parent.subRlmCalls[parent.linkFrom]!;
    parent.linkFrom += 1;
    if (hostCall.ok === undefined && hostCall.childCallId === undefined) return hostCall;
  }
  return undefined;
}

/** Retries so far plus one, announced at `at`, that waited `delayMs`. */
function addRetry(retries: TraceRetries | undefined, delayMs: number, at: number): TraceRetries {
  return {
    count: (retries?.count ?? 0) + 1,
    waitMs: (retries?.waitMs ?? 0) + delayMs,
    lastAttemptAt: at + delayMs,
  };
}

/**
 * Keeps a model call: a host call's whole, on that host call; a step's (or the forced final
 * prompt's) as its difference from the call's previous step request, on the step (or the call).
 */
function recordModelCall(
  entry: CallEntry,
  event: Extract<RlmEvent, { type: 'model-call' }>,
  at: number,
): void {
  const { request, response } = event;
  const call = entry.draft;
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
    const hostCall = entry.hostCalls.get(event.requestId);
    if (hostCall === undefined) return;
    const modelCall: TraceModelCall = {
      ...common,
      system: request.system,
      messages: request.messages,
    };
    hostCall.modelCalls = [...(hostCall.modelCalls ?? []), modelCall];
    return;
  }
  const previous = entry.lastStepRequest ?? newestStepRequest(call);
  const kept = previous === undefined ? 0 : sharedStart(previous.messages, request.messages);
  const modelCall: TraceModelCall = {
    ...common,
    ...(previous?.system === request.system ? {} : { system: request.system }),
    ...(kept > 0 ? { keptMessages: kept } : {}),
    messages: request.messages.slice(kept),
  };
  const step = stepOf(call, event.iteration);
  if (step !== undefined && step.modelCall === undefined && step.endedAt === undefined) {
    step.modelCall = modelCall;
    entry.lastStepRequest = { system: request.system, messages: request.messages };
    return;
  }
  call.extract = modelCall;
}

/** The whole request of the call's newest step model call, rebuilt from the steps; if any. */
function newestStepRequest(call: CallDraft): ExpandedRequest | undefined {
  const position = call.steps.findLastIndex((step) => step.modelCall !== undefined);
  if (position < 0) return undefined;
  return expandModelCalls(call).steps[position];
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

function addWarning(call: CallDraft, warning: TraceWarning): void {
  const step = call.steps.at(-1);
  if (step !== undefined && step.endedAt === undefined && call.status === 'running') {
    step.warnings.push(warning);
  } else call.warnings.push(warning);
}

/** A copy of `call` that later changes to either leave the other as it is. */
function copyCall(call: TraceCall | CallDraft): CallDraft {
  return {
    ...call,
    steps: call.steps.map((step) => ({
      ...step,
      blocks: [...step.blocks],
      hostCalls: step.hostCalls.map((hostCall) => ({ ...hostCall })),
      warnings: [...step.warnings],
    })),
    childCallIds: [...call.childCallIds],
    warnings: [...call.warnings],
  };
}

/** Whether the model was shown the block's output and error as they are (nothing cut). */
function shownAsIs(event: Extract<RlmEvent, { type: 'execution' }>): boolean {
  const { output, error, shownToModel } = event;
  if (error === undefined) return shownToModel === output;
  return [error, `Error: ${error}`].some(
    (errorText) => shownToModel === (output.length > 0 ? `${output}\n${errorText}` : errorText),
  );
}
