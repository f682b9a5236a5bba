/// <reference types="ses" />
/**
 * The sandbox worker's entry. Order matters: SES is loaded, the vetted string method shims are
 * installed, then `lockdown()` freezes the intrinsics; only then, once the host says which
 * sandbox this worker serves, the runtime builds its Compartment. Until then the worker waits,
 * locked down: a pool keeps one such spare so that a new sandbox starts at once.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { GuestRuntime } from './guest-runtime.js';
import { installFastStringMethods } from './install-fast-string-methods.js';
import { loadAcorn } from './load-acorn.js';
import { loadSes } from './load-ses.js';
import type {
  HostMessage,
  WorkerMessage,
  WorkerSetupMessage,
  WorkerStart,
} from './worker-protocol.js';

const port = parentPort;
if (port === null) throw new Error('@rlm/sandbox-ses: worker.js must run in a worker thread');
const post = (message: WorkerMessage) => port.postMessage(message);

const ses = loadSes((workerData as WorkerStart).sesCodeCache);
installFastStringMethods();
lockdown({
  errorTaming: 'safe',
  errorTrapping: 'none',
  unhandledRejectionTrapping: 'none',
  consoleTaming: 'unsafe',
  reporting: 'none',
  overrideTaming: 'moderate',
});
post({ type: 'started', usedCodeCache: ses.usedCache });
// After the setup, if it came already (a new worker), or while waiting for one (a spare).
setImmediate(() => void loadAcorn());
if (!ses.usedCache) {
  // The cache serves later workers, not this one.
  setImmediate(() => post({ type: 'code-cache', data: ses.createCachedData() }));
}

let runtime: GuestRuntime | undefined;
port.on('message', (message: HostMessage | WorkerSetupMessage) => {
  if (runtime !== undefined) runtime.handle(message as HostMessage);
  else if (message.type === 'setup') runtime = new GuestRuntime(port, message.setup);
  else throw new Error(`@rlm/sandbox-ses: the worker got ${message.type} before its setup`);
});
