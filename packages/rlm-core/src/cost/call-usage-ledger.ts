import type { Usage } from '../language-model.js';
import type { CallUsage, CallUsageKind, RunUsage } from '../run-usage.js';

export type { CallUsage, CallUsageKind };

interface Entry {
  readonly callId: string;
  readonly parentCallId: string | undefined;
  readonly kind: CallUsageKind;
  usage: RunUsage;
}

/**
 * Usage per call of one run, in the order the calls started (a host call starts with its first
 * model request).
 */
export class CallUsageLedger {
  readonly #entries = new Map<string, Entry>();

  /** Starts an entry; opening an id again keeps the first. */
  open(callId: string, kind: CallUsageKind, parentCallId?: string): void {
    if (this.#entries.has(callId)) return;
    this.#entries.set(callId, { callId, parentCallId, kind, usage: emptyRunUsage() });
  }

  /** Adds one model call's usage and cost (`undefined`: unpriced) to an open entry. */
  add(callId: string, usage: Usage, costUsd: number | undefined): void {
    const entry = this.#entries.get(callId);
    if (entry) entry.usage = addModelCallUsage(entry.usage, usage, costUsd);
  }

  /** Every entry so far, in start order. */
  get entries(): CallUsage[] {
    return [...this.#entries.values()].map(({ callId, parentCallId, kind, usage }) => ({
      callId,
      ...(parentCallId === undefined ? {} : { parentCallId }),
      kind,
      usage,
    }));
  }
}

/** No usage yet. */
export function emptyRunUsage(): RunUsage {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    modelCalls: 0,
    costUsd: 0,
  };
}

/**
 * `total` plus one model call. The cost stays known while any call was priced; it becomes absent
 * only when every call so far was unpriced.
 */
export function addModelCallUsage(
  total: RunUsage,
  usage: Usage,
  costUsd: number | undefined,
): RunUsage {
  const modelCalls = total.modelCalls + 1;
  const unpriced = (total.unpricedModelCalls ?? 0) + (costUsd === undefined ? 1 : 0);
  const cost = (total.costUsd ?? 0) + (costUsd ?? 0);
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    cacheReadTokens: total.cacheReadTokens + (usage.cacheReadTokens ?? 0),
    cacheWriteTokens: total.cacheWriteTokens + (usage.cacheWriteTokens ?? 0),
    modelCalls,
    ...(unpriced === modelCalls ? {} : { costUsd: cost }),
    ...(unpriced > 0 ? { unpricedModelCalls: unpriced } : {}),
  };
}
