/**
 * The spending part of a report (`--json`, a tally) when no model was called: every count 0,
 * a cost of 0, no calls, 0 ms. Spelled out here, not taken from the code under test.
 */
export const nothingSpent = {
  iterations: 0,
  depthReached: 0,
  usage: {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    modelCalls: 0,
    costUsd: 0,
  },
  callUsage: [],
  durationMs: 0,
} as const;
