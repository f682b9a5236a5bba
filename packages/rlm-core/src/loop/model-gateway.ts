import type { BridgeRequest } from '../bridge/bridge-router.js';
import type { Budget, RemainingBudget } from '../budget.js';
import type { ConcurrencyGate, GateSlot } from '../concurrency-gate.js';
import type { CallUsageLedger } from '../cost/call-usage-ledger.js';
import { ModelCallError } from '../errors/model-call-error.js';
import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  ModelRetry,
  ToolDefinition,
} from '../language-model.js';
import { buildSubmitTool } from '../submit-tool.js';
import type { CallState } from './call-state.js';
import { errorMessage } from '../error-message.js';
import type { CallEvent } from './scheduler.js';

/** What the gateway needs. */
export interface ModelGatewayOptions {
  readonly llm: LanguageModel;
  readonly budget: Budget;
  readonly gate: ConcurrencyGate;
  readonly ledger: CallUsageLedger;
  readonly maxResponseTokens: number | undefined;
  /** The output schema the SUBMIT tool's `value` takes, if any. */
  readonly outputSchema: ToolDefinition['inputSchema'] | undefined;
  readonly emit: (call: CallState, event: CallEvent) => void;
}

/** A model request before the gateway adds `maxTokens`. */
export type ModelRequest = Omit<GenerateRequest, 'maxTokens'>;

/** Host calls whose model calls count in a usage entry of their own. */
const plainCallNames = new Set(['llm_query', 'llm_query_batched', 'sub_rlm', 'sub_rlm_batched']);

/**
 * Every model call of a run goes through here: one concurrency gate, one budget, usage
 * recorded per call of the tree. It also decides whether the SUBMIT tool is offered, and
 * degrades the whole run to the text protocol (FINAL / FINAL_VAR) the first time a provider
 * rejects the tool (`ModelCallError` with reason `tools-unsupported`).
 */
export class ModelGateway {
  readonly #options: ModelGatewayOptions;
  #toolsDisabled = false;
  #submitTool: ToolDefinition | undefined;
  /** The gate's level the events last showed (it starts at the cap). */
  #shownLevel: number;

  constructor(options: ModelGatewayOptions) {
    this.#options = options;
    this.#shownLevel = options.gate.cap;
  }

  /** What is left of the run's budgets (see {@link Budget.remaining}). */
  get remainingBudget(): RemainingBudget {
    return this.#options.budget.remaining;
  }

  /** Whether steps offer the SUBMIT tool now. */
  get submitToolOffered(): boolean {
    return this.#options.llm.supportsTools && !this.#toolsDisabled;
  }

  /** The SUBMIT tool, when offered. */
  get submitTool(): ToolDefinition | undefined {
    if (!this.submitToolOffered) return undefined;
    this.#submitTool ??= buildSubmitTool(this.#options.outputSchema);
    return this.#submitTool;
  }

  /**
   * A step's model call (the call's model), with the SUBMIT tool when offered and `toolChoice`.
   * When the provider rejects the tools, warns once and asks again without them;
   * `buildRequest` is called again so the prompt speaks of FINAL(...) instead.
   */
  async step(
    call: CallState,
    toolChoice: GenerateRequest['toolChoice'],
    buildRequest: () => Promise<ModelRequest>,
  ): Promise<GenerateResult> {
    const request = await buildRequest();
    if (!request.tools) return this.generate(call, call.llm, request);
    try {
      return await this.generate(call, call.llm, { ...request, toolChoice });
    } catch (error) {
      if (!(ModelCallError.isInstance(error) && error.reason === 'tools-unsupported')) throw error;
      this.#toolsDisabled = true;
      this.#options.emit(call, {
        type: 'warning',
        code: 'tools-unsupported',
        message: `The model rejected the SUBMIT tool (${errorMessage(error)}); continuing with FINAL(...) text answers.`,
      });
      return this.generate(call, call.llm, await buildRequest());
    }
  }

  /**
   * One model call: waits for a gate slot, reserves budget, records usage. For a bridge
   * request, its own abort signal applies, it stops counting as waiting once it has a slot,
   * and a plain `llm_query` / `llm_query_batched` / last-depth `sub_rlm` counts in a usage
   * entry of its own.
   */
  async generate(
    call: CallState,
    model: LanguageModel,
    request: ModelRequest,
    bridgeRequest?: BridgeRequest,
  ): Promise<GenerateResult> {
    const { budget, gate, ledger, maxResponseTokens, emit } = this.#options;
    const signal = bridgeRequest ? bridgeRequest.signal : call.abort.signal;
    const usageEntry = this.#usageEntryOf(call, bridgeRequest);
    const sent: GenerateRequest =
      maxResponseTokens === undefined ? request : { ...request, maxTokens: maxResponseTokens };
    const iteration = call.iteration;
    let startedAt = 0;
    const result = await gate.run(async (slot) => {
      if (bridgeRequest) bridgeRequest.waiting = false;
      budget.reserveModelCall();
      startedAt = Date.now();
      try {
        return await model.generate(sent, {
          signal,
          // A loop step's text as it streams in; a host call's (llm_query) is not shown.
          ...(bridgeRequest
            ? {}
            : {
                onText: (delta: string) =>
                  emit(call, { type: 'text-delta', iteration: call.iteration, text: delta }),
              }),
          onRetry: (retry) => {
            emit(call, {
              type: 'model-retry',
              ...retry,
              ...(bridgeRequest ? { requestId: bridgeRequest.id } : {}),
            });
            return this.#rateLimited(call, slot, retry);
          },
        });
      } catch (error) {
        if (ModelCallError.isInstance(error) && error.reason === 'rate-limited') {
          slot.rateLimited(undefined);
          this.#showConcurrency(call);
        }
        throw error;
      }
    }, signal);
    this.#showConcurrency(call);
    const costUsd = budget.record(result.usage, model.modelId);
    ledger.add(usageEntry, result.usage, costUsd);
    emit(call, {
      type: 'model-call',
      iteration,
      ...(bridgeRequest ? { requestId: bridgeRequest.id } : {}),
      modelId: model.modelId,
      request: sent,
      response: result,
      durationMs: Date.now() - startedAt,
    });
    emit(call, {
      type: 'usage',
      usage: result.usage,
      modelId: model.modelId,
      ...(costUsd === undefined ? {} : { costUsd }),
      modelCalls: budget.usage.modelCalls,
      ...(bridgeRequest ? { requestId: bridgeRequest.id } : {}),
    });
    return result;
  }

  /**
   * A retry after a 429: the gate halves its level and holds new starts for the API's
   * `retry-after`, and this call gives its slot up while it waits, then queues for one again.
   */
  #rateLimited(call: CallState, slot: GateSlot, retry: ModelRetry): Promise<void> | undefined {
    if (retry.reason !== 'rate-limited') return undefined;
    const pausedMs = retry.requestedByApi ? retry.delayMs : undefined;
    slot.rateLimited(pausedMs);
    this.#showConcurrency(call, pausedMs);
    return slot.pauseFor(retry.delayMs);
  }

  /**
   * A `concurrency` event when the gate's level is not the one shown last. `pausedMs`: how long
   * a 429's `retry-after` holds new calls.
   */
  #showConcurrency(call: CallState, pausedMs?: number): void {
    const { gate, emit } = this.#options;
    const shown = this.#shownLevel;
    if (shown === gate.level) return;
    this.#shownLevel = gate.level;
    emit(call, {
      type: 'concurrency',
      level: gate.level,
      cap: gate.cap,
      reason: gate.level < shown ? 'rate-limited' : 'raised',
      ...(pausedMs === undefined || gate.level > shown ? {} : { pausedMs }),
    });
  }

  #usageEntryOf(call: CallState, bridgeRequest: BridgeRequest | undefined): string {
    const name = bridgeRequest?.name;
    if (!bridgeRequest || name === undefined || !plainCallNames.has(name)) return call.id;
    this.#options.ledger.open(
      bridgeRequest.id,
      name.startsWith('sub_rlm') ? 'sub_rlm' : 'llm_query',
      call.id,
    );
    return bridgeRequest.id;
  }
}
