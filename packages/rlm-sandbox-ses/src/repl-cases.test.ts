import { runReplCases } from '@rlm/repl-transform';
import { describe, expect, test } from 'vitest';
import { createSesSandbox } from './create-ses-sandbox.js';

// Tests run the built worker: `pnpm build` (turbo runs it before `test`).
const createSandbox = createSesSandbox({
  workerUrl: new URL('../dist/worker.js', import.meta.url),
});

runReplCases({
  name: 'ses',
  create: () => createSandbox({ hostFunctions: {} }),
  api: { describe, expect, test },
});
