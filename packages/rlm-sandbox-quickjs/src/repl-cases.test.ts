import { runReplCases } from '@rlm/repl-transform';
import { describe, expect, test } from 'vitest';
import { createQuickJsSandbox } from './create-quickjs-sandbox.js';

// Tests run the built worker: `pnpm build` (turbo runs it before `test`).
const createSandbox = createQuickJsSandbox({
  workerUrl: new URL('../dist/worker.js', import.meta.url),
});

runReplCases({
  name: 'quickjs',
  create: () => createSandbox({ hostFunctions: {} }),
  api: { describe, expect, test },
});
