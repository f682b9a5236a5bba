import { describe, expect, it } from 'vitest';
import type { BridgeRequest } from '../bridge/bridge-router.js';
import { Budget } from '../budget.js';
import { ConcurrencyGate } from '../concurrency-gate.js';
import { CallUsageLedger } from '../cost/call-usage-ledger.js';
import { BudgetExhaustedError } from '../errors/budget-exhausted-error.js';
import { ModelCallError } from '../errors/model-call-error.js';
import { createScriptedModel } from '../testing/index.js';
import { createCallState } from './call-state.js';
import { ModelGateway, type ModelGatewayOptions } from './model-gateway.js';
import type { CallEvent } from './scheduler.js';

const init = {
  id: 'call-1',
  depth: 0,
  query: 'q',
  context: '',
  parentId: undefined,
  hostVariables: new Set<string>(),
  settlement: { resolve: () => {}, reject: () => {} },
};
const call = createCallState({ ...init, llm: createScriptedModel([]) });
const request = { system: 's', messages: [{ role: 'user' as const, content: 'hi' }] };

function gateway(llm: ModelGatewayOptions['llm'], budget = new Budget({})) {
  const events: CallEvent[] = [];
  const ledger = new CallUsageLedger();
  ledger.open('call-1', 'root');
  const instance = new ModelGateway({
    llm,
    budget,
    gate: new ConcurrencyGate(2),
    ledger,
    maxResponseTokens: 100,
    outputSchema: undefined,
    emit: (_call, event) => events.push(event),
  });
  return { instance, events, ledger, budget };
}

describe('ModelGateway', () => {
  it('offers SUBMIT, and degrades the run to text once when the provider refuses tools', async () => {
    let refusals = 0;
    const llm = createScriptedModel(
      [
        (sent) => {
          if (sent.tools) {
            refusals += 1;
            throw new ModelCallError('tools are not supported', { reason: 'tools-unsupported' });
          }
          return 'no refusal';
        },
        (sent) => (sent.tools ? 'with tools' : 'plain'),
        (sent) => (sent.tools ? 'with tools' : 'still plain'),
      ],
      { supportsTools: true },
    );
    const { instance, events } = gateway(llm);
    const stepping = createCallState({ ...init, llm });
    expect(instance.submitTool?.name).toBe('SUBMIT');
    let built = 0;
    const build = async () => {
      built += 1;
      return { ...request, ...(instance.submitTool ? { tools: [instance.submitTool] } : {}) };
    };
    expect((await instance.step(stepping, 'auto', build)).text).toBe('plain');
    expect(built).toBe(2);
    expect(instance.submitToolOffered).toBe(false);
    expect((await instance.step(stepping, 'auto', build)).text).toBe('still plain');
    expect(refusals).toBe(1);
    expect(events.filter((event) => event.type === 'warning').map((event) => event.code)).toEqual([
      'tools-unsupported',
    ]);
  });

  it('sets maxTokens, records usage per call and gives a plain host call its own entry', async () => {
    const llm = createScriptedModel(['one', 'two']);
    const { instance, events, ledger, budget } = gateway(llm);
    await instance.generate(call, llm, request);
    const bridgeRequest = {
      id: 'bridge-1',
      callId: 'call-1',
      name: 'llm_query',
      args: [],
      startedAt: 0,
      signal: new AbortController().signal,
      waiting: true,
    } satisfies BridgeRequest;
    await instance.generate(call, llm, request, bridgeRequest);
    expect(llm.requests.map((sent) => sent.maxTokens)).toEqual([100, 100]);
    expect(bridgeRequest.waiting).toBe(false);
    expect(budget.usage.modelCalls).toBe(2);
    expect(
      ledger.entries.map((entry) => [entry.callId, entry.kind, entry.usage.modelCalls]),
    ).toEqual([
      ['call-1', 'root', 1],
      ['bridge-1', 'llm_query', 1],
    ]);
    expect(events.filter((event) => event.type === 'usage')).toHaveLength(2);
  });

  it('refuses a call past the budget before the model is asked', async () => {
    const llm = createScriptedModel(['one', 'two']);
    const { instance } = gateway(llm, new Budget({ maxModelCalls: 1 }));
    await instance.generate(call, llm, request);
    await expect(instance.generate(call, llm, request)).rejects.toSatisfy((error) =>
      BudgetExhaustedError.isInstance(error),
    );
    expect(llm.requests).toHaveLength(1);
  });
});
