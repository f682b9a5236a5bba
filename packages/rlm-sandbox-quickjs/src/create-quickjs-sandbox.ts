import type { SandboxFactory } from '@rlm/core';
import { newQuickJSWASMModule } from 'quickjs-emscripten';
import { QuickJsSandbox } from './quickjs-sandbox.js';

/**
 * A `SandboxFactory` for `createRLM` (or for direct use): each call starts a sandbox that runs
 * model code in QuickJS compiled to WebAssembly, in a WebAssembly module of its own (its memory
 * is apart from the host's and from every other sandbox's). Model code runs on the calling
 * thread: the interrupt handler stops it at its deadline, and an abort signal takes effect at
 * the code's next await (code that never awaits stops at its timeout).
 *
 * @example
 * const sandbox = await createQuickJsSandbox()({ hostFunctions: {} });
 * const { output } = await sandbox.execute('const x = 1 + 1; print(x)');
 */
export function createQuickJsSandbox(): SandboxFactory {
  return async (options) => new QuickJsSandbox(await newQuickJSWASMModule(), options);
}
