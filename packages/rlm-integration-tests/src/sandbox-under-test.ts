import type { SandboxFactory } from '@rlm/core';
import { createQuickJsSandbox } from '@rlm/sandbox-quickjs';
import { createSesSandbox } from '@rlm/sandbox-ses';

/** The adapters the loop tests can run through, chosen by `RLM_SANDBOX` (default `ses`). */
const adapters: Readonly<Record<string, () => SandboxFactory>> = {
  ses: () => createSesSandbox(),
  quickjs: () => createQuickJsSandbox(),
};

const chosen = process.env.RLM_SANDBOX ?? 'ses';
const adapter = adapters[chosen];
if (adapter === undefined) {
  throw new Error(`RLM_SANDBOX must be one of ${Object.keys(adapters).join(', ')}; got ${chosen}`);
}

/** The name of the adapter under test: `ses` or `quickjs`. */
export const sandboxName = chosen;

/**
 * The sandbox every loop test runs through: the real SES adapter in worker threads, or with
 * `RLM_SANDBOX=quickjs` the QuickJS adapter.
 */
export const sandboxFactory = adapter();
