import type { FakeChatHandler, FakeChatRequest } from './fake-chat-completions-server.js';
import { type FakeChatReply, fakeChatError } from './fake-chat-replies.js';

/** Settings of {@link limitInFlight}. */
export interface InFlightLimit {
  /** Requests answered at once; one more arriving meanwhile gets 429. */
  readonly maxInFlight: number;
  /** The wait the 429 asks for, sent as `retry-after-ms` (milliseconds). Default 100. */
  readonly retryAfterMs?: number;
  /**
   * Requests the limit does not apply to (a run's own steps, say): answered by `answer` at
   * once, not counted.
   */
  readonly exempt?: (request: FakeChatRequest) => boolean;
}

/** A handler that rate-limits like a provider's concurrency limit, and what it saw. */
export interface InFlightLimitedHandler {
  readonly handler: FakeChatHandler;
  /** The most requests answered at once so far. */
  readonly peakInFlight: number;
  /** Requests refused with 429 so far. */
  readonly refused: number;
}

/**
 * Wraps `answer` in a handler (for `startFakeChatCompletionsServer({ handler })`) that answers at
 * most `maxInFlight` requests at once, as a rate-limited API does: a request arriving while that
 * many are being answered gets 429 `rate_limit_exceeded` with `retry-after-ms`. A reply's
 * `delayMs` counts as time being answered.
 */
export function limitInFlight(
  answer: (request: FakeChatRequest) => FakeChatReply | Promise<FakeChatReply>,
  limit: InFlightLimit,
): InFlightLimitedHandler {
  let inFlight = 0;
  let peakInFlight = 0;
  let refused = 0;
  const retryAfterMs = limit.retryAfterMs ?? 100;
  const handler: FakeChatHandler = async (request) => {
    if (limit.exempt?.(request)) return answer(request);
    if (inFlight >= limit.maxInFlight) {
      refused += 1;
      return fakeChatError(429, { headers: { 'retry-after-ms': String(retryAfterMs) } });
    }
    inFlight += 1;
    peakInFlight = Math.max(peakInFlight, inFlight);
    try {
      const reply = await answer(request);
      if (reply.kind === 'hang' || reply.kind === 'endless' || !reply.delayMs) return reply;
      await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      return { ...reply, delayMs: 0 };
    } finally {
      inFlight -= 1;
    }
  };
  return {
    handler,
    get peakInFlight() {
      return peakInFlight;
    },
    get refused() {
      return refused;
    },
  };
}
