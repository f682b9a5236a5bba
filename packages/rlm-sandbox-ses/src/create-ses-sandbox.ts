import { type SandboxFactory, SandboxError } from '@rlm/core';
import { SesSandbox } from './ses-sandbox.js';
import { createSesWorkerPool } from './ses-worker-pool.js';

/** Settings of {@link createSesSandbox}. */
export interface SesSandboxSettings {
  /**
   * Where the worker script is. Defaults to `worker.js` beside this module, as published; set
   * it when a bundler moves the files.
   */
  readonly workerUrl?: URL | string;
  /**
   * Bytes of model-defined variables copied to the host after each execution, so that a worker
   * replaced after a timeout, a memory fault or an abort gets them back. Values that clone
   * larger, functions and class instances are not copied (the error then names them). Host-set
   * variables are always restored and never copied. Default 16 MiB; `0` copies nothing.
   */
  readonly snapshotLimitBytes?: number;
  /**
   * Most bytes one value may take to leave the sandbox for the host: the arguments of one host
   * call, or a variable the host reads (`getVariable`, e.g. for `FINAL_VAR` or a checkpoint).
   * The value is sized inside the worker before anything is copied, counting a string in full
   * at every place it appears (the structured clone copies it each time, even when shared), and
   * refused over the limit with an error model code can catch; the host checks the byte length
   * again before decoding. Capped by the sandbox's `memoryMb`. Default 256 MiB.
   */
  readonly transferLimitBytes?: number;
}

/**
 * A `SandboxFactory` for `createRLM` (or for direct use): each call starts a sandbox that runs
 * model code in a SES Compartment inside its own worker thread. Once a second worker has been
 * needed (a `sub_rlm` child, or a restart after a timeout), and while one of its sandboxes is
 * open, the factory keeps a spare worker started and locked down, so that the next child or
 * restart starts in milliseconds; the spare never keeps the process alive and ends with the
 * last sandbox.
 *
 * @throws SandboxError when `transferLimitBytes` is not a positive whole number.
 *
 * @example
 * const sandbox = await createSesSandbox()({ hostFunctions: {} });
 * const { output } = await sandbox.execute('const x = 1 + 1; print(x)');
 */
export function createSesSandbox(settings: SesSandboxSettings = {}): SandboxFactory {
  const workerUrl = new URL(settings.workerUrl ?? new URL('./worker.js', import.meta.url));
  const snapshotLimitBytes = settings.snapshotLimitBytes ?? 16 * 1024 * 1024;
  const transferLimitBytes = settings.transferLimitBytes ?? 256 * 1024 * 1024;
  if (!Number.isSafeInteger(transferLimitBytes) || transferLimitBytes <= 0) {
    throw new SandboxError(
      `@rlm/sandbox-ses: transferLimitBytes must be a positive whole number of bytes; got ${String(transferLimitBytes)}`,
    );
  }
  const pool = createSesWorkerPool(workerUrl);
  return (options) => SesSandbox.create(options, { pool, snapshotLimitBytes, transferLimitBytes });
}
