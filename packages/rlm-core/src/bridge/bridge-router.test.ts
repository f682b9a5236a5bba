import { describe, expect, test } from 'vitest';
import { type BridgeOutcome, type BridgeRequest, BridgeRouter } from './bridge-router.js';

function router(strategy: 'unbounded' | 'dropping' | 'sliding' = 'unbounded', maxPending = 100) {
  const settled: Array<{ request: BridgeRequest; outcome: BridgeOutcome }> = [];
  const overloads: number[] = [];
  const instance = new BridgeRouter(
    { strategy, maxPending },
    {
      settled: (request, outcome) => settled.push({ request, outcome }),
      overloaded: (_callId, backlog) => overloads.push(backlog),
    },
  );
  return { router: instance, settled, overloads };
}

function admit(bridge: BridgeRouter, name = 'llm_query') {
  const admission = bridge.admit('call-1', name, []);
  if ('refusal' in admission) throw admission.refusal;
  // Unhandled rejections would fail the run; each test reads the result it cares about.
  admission.result.catch(() => {});
  return admission;
}

describe('BridgeRouter', () => {
  test('a value settles the request once; the hook sees it first', async () => {
    const { router: bridge, settled } = router();
    const { request, result } = admit(bridge);
    bridge.dispatch(request.id, () => 'answer');
    await expect(result).resolves.toBe('answer');
    expect(settled.map(({ outcome }) => outcome)).toEqual([{ ok: true, value: 'answer' }]);
    expect(bridge.size).toBe(0);
  });

  test.each([
    [
      'throws',
      () => {
        throw new Error('bad argument');
      },
      'bad argument',
    ],
    ['rejects', () => Promise.reject(new Error('model down')), 'model down'],
    ['rejects with a string', () => Promise.reject('plain text'), 'plain text'],
    ['rejects with nothing', () => Promise.reject(undefined), 'llm_query failed'],
    [
      'throws an object whose message getter throws',
      () => {
        throw {
          get message() {
            throw new Error('getter');
          },
        };
      },
      'llm_query failed',
    ],
  ])('a handler that %s rejects the request with a plain Error', async (_how, handler, message) => {
    const { router: bridge, settled } = router();
    const { request, result } = admit(bridge);
    bridge.dispatch(request.id, handler);
    const error = await result.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(message);
    expect(settled).toHaveLength(1);
    expect(request.signal.aborted).toBe(true);
  });

  test("a request's signal made after an early end is already aborted, with the end's error", () => {
    const { router: bridge } = router();
    const { request, result } = admit(bridge);
    result.catch(() => {});
    const error = new Error('dropped');
    bridge.settle(request.id, { ok: false, error });
    expect(request.signal.aborted).toBe(true);
    expect(request.signal.reason).toBe(error);
  });

  test('a handler that never settles leaves the request open until settle; later settles do nothing', async () => {
    const { router: bridge, settled } = router();
    const { request, result } = admit(bridge);
    bridge.dispatch(request.id, () => new Promise(() => {}));
    expect(bridge.get(request.id)).toBe(request);
    bridge.settle(request.id, { ok: false, error: new Error('the calling query has ended') });
    bridge.settle(request.id, { ok: true, value: 'late' });
    await expect(result).rejects.toThrow('the calling query has ended');
    expect(settled).toHaveLength(1);
    expect(bridge.get(request.id)).toBeUndefined();
  });

  test('a late value after an early settle is ignored', async () => {
    const { router: bridge, settled } = router();
    const { request, result } = admit(bridge);
    let answer: (value: string) => void = () => {};
    bridge.dispatch(request.id, () => new Promise((resolve) => (answer = resolve)));
    bridge.settle(request.id, { ok: false, error: new Error('dropped') });
    answer('late');
    await expect(result).rejects.toThrow('dropped');
    await Promise.resolve();
    expect(settled).toHaveLength(1);
  });

  test('a throwing hook never stops the request from settling', async () => {
    const bridge = new BridgeRouter(
      { strategy: 'unbounded', maxPending: 1 },
      {
        settled: () => {
          throw new Error('consumer broke');
        },
        overloaded: () => {
          throw new Error('consumer broke');
        },
      },
    );
    const first = admit(bridge);
    const second = admit(bridge);
    bridge.dispatch(first.request.id, () => 1);
    bridge.dispatch(second.request.id, () => 2);
    await expect(Promise.all([first.result, second.result])).resolves.toEqual([1, 2]);
  });

  test('dropping refuses past maxPending, naming the function and the setting', () => {
    const { router: bridge } = router('dropping', 2);
    admit(bridge);
    admit(bridge);
    const refused = bridge.admit('call-1', 'sub_rlm', []);
    expect('refusal' in refused && refused.refusal.message).toBe(
      'sub_rlm: host call refused: 2 calls are already pending (commandQueue.maxPending is 2); await some before starting more',
    );
  });

  test('sliding drops the oldest waiting request; a request at work is kept', async () => {
    const { router: bridge } = router('sliding', 2);
    const working = admit(bridge);
    working.request.waiting = false;
    const waiting = admit(bridge);
    const newest = admit(bridge);
    await expect(waiting.result).rejects.toThrow('llm_query dropped: newer host calls replaced it');
    expect(bridge.get(working.request.id)).toBe(working.request);
    expect(bridge.get(newest.request.id)).toBe(newest.request);
  });

  test('unbounded warns once per crossing of maxPending', () => {
    const { router: bridge, overloads } = router('unbounded', 2);
    const requests = [admit(bridge), admit(bridge), admit(bridge), admit(bridge)];
    expect(overloads).toEqual([2]);
    for (const { request } of requests) bridge.settle(request.id, { ok: true, value: 1 });
    admit(bridge);
    admit(bridge);
    admit(bridge);
    expect(overloads).toEqual([2, 2]);
  });
});
