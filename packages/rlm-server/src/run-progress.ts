import { addModelCallUsage, emptyRunUsage, type RlmEvent, type RunUsage } from '@rlm/core';

/**
 * One progress report of a served run: over HTTP an SSE comment `: rlm <JSON>`, over MCP a
 * `notifications/progress` whose `message` is {@link ServedProgress.message}.
 */
export interface ServedProgress {
  /** 1 for the run's first report, then one more for each. */
  readonly sequence: number;
  /** The event reported: `call-start`, `step-start`, `execution`, `bridge-call`, `usage`, `model-retry`, `warning` or `final`. */
  readonly event: RlmEvent['type'];
  /** 0 for the root call, more for `sub_rlm` children. */
  readonly depth: number;
  /** The step of the call, when the event has one. */
  readonly iteration?: number;
  /** One line for a person: `step 2`, `[depth 1] code ran (12 ms)`, `llm_query`, ... */
  readonly message: string;
  /** Model calls of the whole run so far. */
  readonly modelCalls: number;
  /** Tokens of the whole run so far: input, output, cache reads and writes. */
  readonly tokens: number;
  /** US dollars so far; absent while no model call had a price. */
  readonly costUsd?: number;
}

/** Reports of these kinds come at most once per interval (a wide `llm_query_batched` makes thousands). */
const frequentEvents: ReadonlySet<RlmEvent['type']> = new Set(['bridge-call', 'usage']);

/**
 * Turns a run's events into progress reports, and keeps its usage so far. Events of the
 * frequent kinds (`bridge-call`, `usage`) are reported at most once per `intervalMs`; the
 * others each time; text, code, variable listings and checkpoints never.
 */
export class RunProgress {
  readonly #intervalMs: number;
  readonly #now: () => number;
  #sequence = 0;
  #lastFrequent = Number.NEGATIVE_INFINITY;
  #usage: RunUsage = emptyRunUsage();
  #modelCalls = 0;

  constructor(options: { readonly intervalMs?: number; readonly now?: () => number } = {}) {
    this.#intervalMs = options.intervalMs ?? 250;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Tokens, model calls and cost of the model calls seen so far (for a run that failed). */
  get usage(): RunUsage {
    return { ...this.#usage, modelCalls: this.#modelCalls };
  }

  /** Takes one event of the run (every event, at every depth, in order); returns its report, if any. */
  observe(event: RlmEvent): ServedProgress | undefined {
    if (event.type === 'usage') {
      this.#usage = addModelCallUsage(this.#usage, event.usage, event.costUsd);
      this.#modelCalls = Math.max(this.#modelCalls, event.modelCalls);
    }
    const message = describeEvent(event, this.usage);
    if (message === undefined) return undefined;
    if (frequentEvents.has(event.type)) {
      const now = this.#now();
      if (now - this.#lastFrequent < this.#intervalMs) return undefined;
      this.#lastFrequent = now;
    }
    const usage = this.usage;
    return {
      sequence: ++this.#sequence,
      event: event.type,
      depth: event.depth,
      ...('iteration' in event ? { iteration: event.iteration } : {}),
      message: event.depth > 0 ? `[depth ${event.depth}] ${message}` : message,
      modelCalls: usage.modelCalls,
      tokens: totalTokens(usage),
      ...(usage.costUsd === undefined ? {} : { costUsd: usage.costUsd }),
    };
  }
}

/** Input, output, cache-read and cache-write tokens together. */
export function totalTokens(usage: RunUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

function describeEvent(event: RlmEvent, usage: RunUsage): string | undefined {
  switch (event.type) {
    case 'call-start':
      return event.depth > 0 ? 'sub_rlm call started' : 'run started';
    case 'step-start':
      return `step ${event.iteration}`;
    case 'execution':
      return event.error === undefined
        ? `code ran (${Math.round(event.durationMs)} ms)`
        : `code failed: ${excerpt(event.error)}`;
    case 'bridge-call':
      return event.name;
    case 'usage': {
      const cost = usage.costUsd === undefined ? '' : ` · $${usage.costUsd.toFixed(4)}`;
      return `${usage.modelCalls} model calls · ${totalTokens(usage)} tokens${cost}`;
    }
    case 'model-retry':
      return `the model API ${excerpt(event.detail)}; retrying in ${Math.ceil(event.delayMs / 1000)} s (attempt ${event.attempt} of ${event.maxAttempts})`;
    case 'warning':
      return `warning (${event.code}): ${excerpt(event.message)}`;
    case 'final':
      return event.depth === 0 ? 'answered' : 'sub_rlm call answered';
    default:
      return undefined;
  }
}

function excerpt(text: string, maxChars = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}
