import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type SandboxFactory, SandboxError } from '@rlm/core';
import { WorkerPool } from '@rlm/core/sandbox-support';
import { QuickJsSandbox } from './quickjs-sandbox.js';
import type { WorkerStart } from './worker-protocol.js';

/** Settings of {@link createQuickJsSandbox}. */
export interface QuickJsSandboxSettings {
  /**
   * Where the worker script is. Defaults to `worker.js` beside this module, as published; set
   * it when a bundler moves the files.
   */
  readonly workerUrl?: URL | string;
  /**
   * Bytes of model-defined variables copied to the host after each execution (counted as
   * characters of their JSON copies), so that a worker replaced after running out of memory,
   * or after code that a timeout could not interrupt, gets them back. Values that copy larger,
   * functions and class instances are not copied (the error then names them). Host-set
   * variables are always restored and never copied. Default 16 MiB; `0` copies nothing.
   */
  readonly snapshotLimitBytes?: number;
}

const mebibyte = 1024 * 1024;

let compiling: Promise<WebAssembly.Module> | undefined;
/** The QuickJS WebAssembly module, once compiled. */
let compiled: WebAssembly.Module | undefined;

/** Compiles the QuickJS WebAssembly module, once per process, for every worker to share. */
function compileQuickJs(): Promise<WebAssembly.Module> {
  compiling ??= (async () => {
    const fromHere = createRequire(import.meta.url);
    const fromQuickJs = createRequire(fromHere.resolve('quickjs-emscripten'));
    const path = fromQuickJs.resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
    compiled = await WebAssembly.compile(await readFile(path));
    return compiled;
  })();
  compiling.catch(() => {
    compiling = undefined;
  });
  return compiling;
}

/**
 * A `SandboxFactory` for `createRLM` (or for direct use): each call starts a sandbox that runs
 * model code in QuickJS compiled to WebAssembly, inside a worker thread of its own. While one
 * of its sandboxes is open, and once a second worker has been needed (a `sub_rlm` child or a
 * restart), the factory keeps a spare worker with QuickJS loaded, so that the next child or
 * restart starts at once; the spare never keeps the
 * process alive and ends with the last sandbox. The QuickJS
 * heap is the worker's WebAssembly memory, which cannot grow past `memoryMb`; busy code is
 * interrupted at its timeout or abort, and code inside a long native built-in (which QuickJS
 * does not interrupt) is stopped by terminating the worker, whose replacement gets the
 * variables back. The host's event loop never waits on model code.
 *
 * @throws SandboxError when `snapshotLimitBytes` is not a whole number of bytes, 0 or more.
 *
 * @example
 * const sandbox = await createQuickJsSandbox()({ hostFunctions: {} });
 * const { output } = await sandbox.execute('const x = 1 + 1; print(x)');
 */
export function createQuickJsSandbox(settings: QuickJsSandboxSettings = {}): SandboxFactory {
  const workerUrl = new URL(settings.workerUrl ?? new URL('./worker.js', import.meta.url));
  const snapshotLimitBytes = settings.snapshotLimitBytes ?? 16 * 1024 * 1024;
  if (!Number.isSafeInteger(snapshotLimitBytes) || snapshotLimitBytes < 0) {
    throw new SandboxError(
      `@rlm/sandbox-quickjs: snapshotLimitBytes must be a whole number of bytes, 0 or more; got ${String(snapshotLimitBytes)}`,
    );
  }
  const pool = new WorkerPool({
    workerUrl,
    workerData: (memoryMb): WorkerStart => ({
      wasmModule: compiled as WebAssembly.Module,
      memoryBytes: memoryMb * mebibyte,
    }),
    // The QuickJS heap is the WebAssembly memory, capped at memoryMb; the worker's own heap
    // holds what crosses to the host and back.
    resourceLimits: (memoryMb) => ({ maxOldGenerationSizeMb: Math.max(64, memoryMb) }),
  });
  return async (options) => {
    await compileQuickJs();
    return QuickJsSandbox.create(options, { pool, snapshotLimitChars: snapshotLimitBytes });
  };
}
