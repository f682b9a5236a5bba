import { Worker } from 'node:worker_threads';
import type { PlainNodeReply, PlainNodeRequest } from './plain-node-protocol.js';

/** Plain Node in a worker thread: the baseline the sandbox is compared with. */
export interface PlainNodeWorker extends AsyncDisposable {
  /** Defines a global, by structured clone (like the sandbox's `setVariables`). */
  set(name: string, value: unknown): Promise<void>;
  /** Runs code; resolves with its completion value when primitive. Rejects when it throws. */
  run(code: string): Promise<unknown>;
}

type RequestBody =
  | { readonly type: 'set'; readonly name: string; readonly value: unknown }
  | { readonly type: 'run'; readonly code: string };

/** Starts the worker; resolves once it runs. */
export async function startPlainNodeWorker(): Promise<PlainNodeWorker> {
  const worker = new Worker(new URL('./plain-node-worker.js', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: 4096 },
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  worker.on('message', (reply: PlainNodeReply) => {
    const request = pending.get(reply.id);
    if (request === undefined) return;
    pending.delete(reply.id);
    if (reply.ok) request.resolve(reply.value);
    else request.reject(new Error(`@rlm/bench: plain Node worker: ${reply.message}`));
  });
  worker.on('error', (error) => {
    for (const request of pending.values()) request.reject(error);
    pending.clear();
  });
  const send = (body: RequestBody) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...body, id } satisfies PlainNodeRequest);
    });
  await send({ type: 'run', code: 'undefined' });
  return {
    set: async (name, value) => {
      await send({ type: 'set', name, value });
    },
    run: (code) => send({ type: 'run', code }),
    [Symbol.asyncDispose]: async () => {
      await worker.terminate();
    },
  };
}
