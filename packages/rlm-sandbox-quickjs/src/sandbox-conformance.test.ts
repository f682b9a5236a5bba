import { runSandboxConformance } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { createQuickJsSandbox } from './create-quickjs-sandbox.js';

// QuickJS runs on the test's own thread: an abort is seen when the code awaits.
runSandboxConformance({
  name: 'quickjs',
  create: createQuickJsSandbox(),
  api: { describe, expect, test },
  abortStopsBusyCode: false,
});
