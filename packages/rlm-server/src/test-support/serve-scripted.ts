import type { ScriptedStep } from '@rlm/core/testing';
import { createScriptedModel, type ScriptedModel } from '@rlm/core/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
import {
  startRlmHttpServer,
  type RlmHttpServer,
  type RlmHttpServerSettings,
} from '../http/start-rlm-http-server.js';
import { createRlmService, type RlmService, type RlmServiceSettings } from '../rlm-service.js';
import type { ServedRequestLog } from '../served-request-log.js';

/** Test harness: a served RLM on a scripted model, the real SES sandbox and a loopback port. */

/** The served id of the scripted model. */
export const scriptedModelId = 'rlm:scripted:model';

/** The log of a test server, with a way to wait for entries. */
export class LogEntries {
  readonly entries: ServedRequestLog[] = [];
  readonly #waiters: { count: number; resolve: () => void }[] = [];

  push(entry: ServedRequestLog): void {
    this.entries.push(entry);
    for (const waiter of this.#waiters.filter(
      (candidate) => this.entries.length >= candidate.count,
    )) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  /** Resolves once `count` entries were logged. */
  waitFor(count: number): Promise<ServedRequestLog[]> {
    if (this.entries.length >= count) return Promise.resolve(this.entries);
    return new Promise((resolve) => {
      this.#waiters.push({ count, resolve: () => resolve(this.entries) });
    });
  }
}

/** A served scripted model and what the test needs of it. */
export interface ScriptedServer extends AsyncDisposable {
  readonly server: RlmHttpServer;
  readonly service: RlmService;
  readonly model: ScriptedModel;
  readonly log: LogEntries;
  /** The OpenAI base URL: `${server.url}/v1`. */
  readonly baseURL: string;
}

/** Where the scripted model's calls are priced: $1 per million input and output tokens. */
export const scriptedPrice = {
  inputPerMillionUsd: 1,
  outputPerMillionUsd: 1,
  cacheReadPerMillionUsd: 0.1,
  cacheWritePerMillionUsd: 1.25,
};

/**
 * Serves `steps` (or `model`) as {@link scriptedModelId} over HTTP on a free loopback port,
 * with its log collected. Dispose it (`await using`) to close.
 */
export async function serveScripted(
  steps: readonly ScriptedStep[] | ScriptedModel,
  options: {
    readonly service?: Partial<Omit<RlmServiceSettings, 'models' | 'log'>>;
    readonly http?: Partial<Omit<RlmHttpServerSettings, 'service'>>;
  } = {},
): Promise<ScriptedServer> {
  const model = Array.isArray(steps)
    ? createScriptedModel(steps, { modelId: 'scripted' })
    : (steps as ScriptedModel);
  const log = new LogEntries();
  const service = await createRlmService({
    ...options.service,
    models: { [scriptedModelId]: { model: model } },
    rlm: {
      sandbox: createSesSandbox(),
      prices: { scripted: scriptedPrice },
      ...options.service?.rlm,
    },
    log: (entry) => log.push(entry),
  });
  const server = await startRlmHttpServer({ port: 0, ...options.http, service });
  return {
    server,
    service,
    model,
    log,
    baseURL: `${server.url}/v1`,
    async [Symbol.asyncDispose]() {
      await server.close({ graceMs: 0 });
    },
  };
}
