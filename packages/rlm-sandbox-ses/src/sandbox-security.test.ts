import { runSandboxSecuritySuite } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { createSesSandbox } from './create-ses-sandbox.js';

// Tests run the built worker: `pnpm build` (turbo runs it before `test`).
const workerUrl = new URL('../dist/worker.js', import.meta.url);

runSandboxSecuritySuite({
  name: 'ses',
  create: createSesSandbox({ workerUrl }),
  api: { describe, expect, test },
});
