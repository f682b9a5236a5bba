import { ModelCallError } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
import { describe, expect, test } from 'vitest';
import { ServedRequestError } from './errors/served-request-error.js';
import { ServerSettingsError } from './errors/server-settings-error.js';
import { createRlmService, type ServedQuery } from './rlm-service.js';
import type { ServedRequestLog } from './served-request-log.js';

/** The service itself, below any protocol: settings, refusals, failures, close. */

const sandbox = createSesSandbox();

function query(overrides: Partial<ServedQuery> = {}): ServedQuery {
  return {
    protocol: 'openai',
    requestId: 'chatcmpl-test',
    startedAt: Date.now(),
    model: undefined,
    query: 'What?',
    limits: {},
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function startError(promise: Promise<unknown>): Promise<ServedRequestError> {
  try {
    await promise;
  } catch (error) {
    if (ServedRequestError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ServedRequestError');
}

describe('createRlmService', () => {
  test('settings that cannot serve are refused before anything runs', async () => {
    await expect(createRlmService({ models: {}, rlm: { sandbox } })).rejects.toThrow(
      ServerSettingsError,
    );
    const llm = createScriptedModel([], { modelId: 'unpriced' });
    await expect(
      createRlmService({
        models: { 'rlm:x:unpriced': { model: llm } },
        rlm: { sandbox },
        limits: { maxCostUsd: 1 },
      }),
    ).rejects.toThrow(/cannot serve rlm:x:unpriced: .*needs a price for the model 'unpriced'/);
    await expect(
      createRlmService({ models: { 'rlm:x:y': { model: llm } }, rlm: { sandbox }, concurrency: 0 }),
    ).rejects.toThrow(/concurrency must be a positive whole number/);
  });

  test('a resolver serves ids that are not listed; its refusal is a 404 with its reason', async () => {
    const listed = createScriptedModel([]);
    const dynamic = createScriptedModel(['FINAL(from the resolver)']);
    const service = await createRlmService({
      models: { 'rlm:x:listed': { model: listed } },
      resolveModel: (id) => {
        if (id.root === 'x:dynamic') return { model: dynamic };
        throw new Error('X_API_KEY is not set');
      },
      rlm: { sandbox },
    });
    const run = await service.start(query({ model: 'rlm:x:dynamic' }));
    expect(run.model).toBe('rlm:x:dynamic');
    expect((await run.done).answer).toBe('from the resolver');
    const refused = await startError(service.start(query({ model: 'rlm:x:other' })));
    expect(refused.status).toBe(404);
    expect(refused.message).toContain('(X_API_KEY is not set)');
  });
});

describe('RlmService', () => {
  test('a model API failure ends the run 502, logged with its usage so far', async () => {
    const log: ServedRequestLog[] = [];
    const llm = createScriptedModel([
      '```repl\nprint(1)\n```',
      {
        error: new ModelCallError('the API answered 503 overloaded', {
          status: 503,
          reason: 'server',
        }),
      },
    ]);
    const service = await createRlmService({
      models: { 'rlm:x:y': { model: llm } },
      rlm: { sandbox },
      log: (entry) => log.push(entry),
    });
    const run = await service.start(query());
    const error = await startError(run.done);
    expect(error.status).toBe(502);
    expect(error.code).toBe('model_server');
    expect(error.message).toBe('the model API failed: the API answered 503 overloaded');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ outcome: 'failed', status: 502, error: 'model_server' });
    // The call that failed returned no usage.
    expect(log[0]!.usage?.modelCalls).toBe(1);
  });

  test('max_cost_usd on an unpriced model and paths without a context root are 400s', async () => {
    const service = await createRlmService({
      models: { 'rlm:x:y': { model: createScriptedModel([], { modelId: 'unpriced' }) } },
      rlm: { sandbox },
    });
    const price = await startError(service.start(query({ limits: { max_cost_usd: 1 } })));
    expect(price).toMatchObject({
      status: 400,
      code: 'model_price_missing',
      param: 'max_cost_usd',
    });
    const paths = await startError(service.start(query({ paths: ['a.txt'], pathsParam: 'paths' })));
    expect(paths).toMatchObject({ status: 400, code: 'no_context_root', param: 'paths' });
    expect(service.concurrency.running).toBe(0);
  });

  test('a trace recorder that throws changes nothing; its run id comes back', async () => {
    const seen: string[] = [];
    const service = await createRlmService({
      models: { 'rlm:x:y': { model: createScriptedModel(['FINAL(fine)']) } },
      rlm: { sandbox },
      recordRun: (run) => ({
        runId: `run-of-${run.requestId}`,
        record: (event) => {
          seen.push(event.type);
          throw new Error('recorder broke');
        },
        finish: async () => {
          throw new Error('the store is gone');
        },
      }),
    });
    const answer = await (await service.start(query())).done;
    expect(answer).toMatchObject({ answer: 'fine', runId: 'run-of-chatcmpl-test' });
    expect(seen).toContain('final');
  });

  test('a trace is kept after the answer is sent; close and the run catalog wait for it', async () => {
    let keep!: () => void;
    const kept = new Promise<void>((resolve) => {
      keep = resolve;
    });
    const listed: string[] = [];
    const service = await createRlmService({
      models: { 'rlm:x:y': { model: createScriptedModel(['FINAL(now)']) } },
      rlm: { sandbox },
      recordRun: () => ({ runId: 'run-1', record: () => {}, finish: () => kept }),
      runs: {
        list: async () => {
          listed.push('listed');
          return [];
        },
        read: async () => undefined,
      },
    });
    // The answer does not wait for the trace.
    expect(await (await service.start(query())).done).toMatchObject({
      answer: 'now',
      runId: 'run-1',
    });
    let closed = false;
    const closing = service.close().then(() => {
      closed = true;
    });
    const listing = service.runs!.list(5);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    expect(listed).toEqual([]);
    keep();
    await Promise.all([closing, listing]);
    expect(listed).toEqual(['listed']);
  });

  test('after close, new runs are refused 503; close is idempotent', async () => {
    const service = await createRlmService({
      models: { 'rlm:x:y': { model: createScriptedModel([]) } },
      rlm: { sandbox },
    });
    await Promise.all([service.close(), service.close()]);
    expect(service.closing).toBe(true);
    const error = await startError(service.start(query()));
    expect(error).toMatchObject({ status: 503, code: 'shutting_down', type: 'server_error' });
  });

  test('an answer that is not a string comes back as JSON', async () => {
    const service = await createRlmService({
      models: {
        'rlm:x:y': {
          model: createScriptedModel([
            '```repl\nconst result = { total: 3 };\n```\nFINAL_VAR(result)',
          ]),
        },
      },
      rlm: { sandbox },
    });
    expect((await (await service.start(query())).done).answer).toBe('{\n  "total": 3\n}');
  });
});
