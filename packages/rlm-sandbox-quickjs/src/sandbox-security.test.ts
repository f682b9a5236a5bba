import { runSandboxSecuritySuite } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { createQuickJsSandbox } from './create-quickjs-sandbox.js';

// Tests run the built worker: `pnpm build` (turbo runs it before `test`).
const workerUrl = new URL('../dist/worker.js', import.meta.url);

runSandboxSecuritySuite({
  name: 'quickjs',
  create: createQuickJsSandbox({ workerUrl }),
  api: { describe, expect, test },
});
