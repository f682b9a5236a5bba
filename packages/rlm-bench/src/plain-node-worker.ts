/**
 * The plain Node baseline of the compute benchmarks: a worker thread, like the sandbox's, that
 * runs code with `vm.runInThisContext` in its own (unlocked) realm. Top-level `let`/`const`
 * persist across runs, as in Node's REPL; host-set variables are globals.
 */
import { runInThisContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';
import type { PlainNodeReply, PlainNodeRequest } from './plain-node-protocol.js';

const port = parentPort;
if (port === null) throw new Error('@rlm/bench: plain-node-worker.js must run in a worker thread');
port.on('message', (request: PlainNodeRequest) => {
  let reply: PlainNodeReply;
  try {
    if (request.type === 'set') {
      (globalThis as Record<string, unknown>)[request.name] = request.value;
      reply = { id: request.id, ok: true, value: undefined };
    } else {
      const value: unknown = runInThisContext(request.code);
      reply = { id: request.id, ok: true, value: typeof value === 'object' ? undefined : value };
    }
  } catch (error) {
    reply = { id: request.id, ok: false, message: String(error) };
  }
  port.postMessage(reply);
});
