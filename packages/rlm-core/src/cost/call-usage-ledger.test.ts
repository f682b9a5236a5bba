import { describe, expect, test } from 'vitest';
import { CallUsageLedger } from './call-usage-ledger.js';

describe('CallUsageLedger', () => {
  test('keeps each call its own usage, in start order', () => {
    const ledger = new CallUsageLedger();
    ledger.open('call-1', 'root');
    ledger.open('bridge-1', 'llm_query', 'call-1');
    ledger.add('call-1', { inputTokens: 10, outputTokens: 2, cacheReadTokens: 5 }, 0.5);
    ledger.add('bridge-1', { inputTokens: 3, outputTokens: 1 }, undefined);
    ledger.add('bridge-1', { inputTokens: 3, outputTokens: 1 }, 0.25);
    expect(ledger.entries).toEqual([
      {
        callId: 'call-1',
        kind: 'root',
        usage: {
          inputTokens: 10,
          outputTokens: 2,
          cacheReadTokens: 5,
          cacheWriteTokens: 0,
          modelCalls: 1,
          costUsd: 0.5,
        },
      },
      {
        callId: 'bridge-1',
        parentCallId: 'call-1',
        kind: 'llm_query',
        usage: {
          inputTokens: 6,
          outputTokens: 2,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          modelCalls: 2,
          costUsd: 0.25,
          unpricedModelCalls: 1,
        },
      },
    ]);
  });

  test('a call whose every model call was unpriced has no cost', () => {
    const ledger = new CallUsageLedger();
    ledger.open('call-1', 'root');
    ledger.add('call-1', { inputTokens: 1, outputTokens: 1 }, undefined);
    expect(ledger.entries[0]!.usage.costUsd).toBeUndefined();
    expect(ledger.entries[0]!.usage.unpricedModelCalls).toBe(1);
  });
});
