/**
 * The sandbox worker's entry. Order matters: the vetted `split` shim is installed, then
 * `lockdown()` freezes the intrinsics, then the runtime builds its Compartment.
 */
import { parentPort, workerData } from 'node:worker_threads';
import 'ses';
import { installFastSplit } from './fast-split.js';
import { GuestRuntime } from './guest-runtime.js';
import type { HostMessage, WorkerSetup } from './worker-protocol.js';

installFastSplit();
lockdown({
  errorTaming: 'safe',
  errorTrapping: 'none',
  unhandledRejectionTrapping: 'none',
  consoleTaming: 'unsafe',
  reporting: 'none',
  overrideTaming: 'moderate',
});

const port = parentPort;
if (port === null) throw new Error('@rlm/sandbox-ses: worker.js must run in a worker thread');
const runtime = new GuestRuntime(port, workerData as WorkerSetup);
port.on('message', (message: HostMessage) => runtime.handle(message));
