/**
 * The sandbox worker's entry. It loads QuickJS into a WebAssembly memory of the sandbox's size
 * at once; only then, once the host says which sandbox this worker serves, does the session
 * install the sandbox's globals. Until then the worker waits: a pool keeps one such spare so
 * that a new sandbox (or a restart) starts at once.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type Engine, GuestSession } from './guest-session.js';
import type { HostMessage, WorkerSetupMessage, WorkerStart } from './worker-protocol.js';

const port = parentPort;
if (port === null) throw new Error('@rlm/sandbox-quickjs: worker.js must run in a worker thread');

/** Messages that came before the engine was loaded: the setup first. */
const waiting: (HostMessage | WorkerSetupMessage)[] = [];
let engine: Engine | undefined;
let session: GuestSession | undefined;

function startWhenReady(): void {
  if (engine === undefined || session !== undefined || port === null) return;
  const setup = waiting.shift();
  if (setup === undefined) return;
  if (setup.type !== 'setup') {
    throw new Error(`@rlm/sandbox-quickjs: the worker got ${setup.type} before its setup`);
  }
  session = new GuestSession(port, setup.setup, engine);
  for (const message of waiting.splice(0)) session.handle(message as HostMessage);
}

port.on('message', (message: HostMessage | WorkerSetupMessage) => {
  if (session !== undefined) session.handle(message as HostMessage);
  else {
    waiting.push(message);
    startWhenReady();
  }
});
engine = await GuestSession.loadEngine(workerData as WorkerStart);
startWhenReady();
