import { runSandboxSecuritySuite } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { createQuickJsSandbox } from './create-quickjs-sandbox.js';

// QuickJS allocates objects several times slower than V8: at the default 128 MB its heap bomb
// fills the heap in about 19 s, and 32 MB took 10 s on a loaded 2-core machine (16 MB once over
// 15 s). The limit works the same at 16 MB. Its bridge settles 10,000 calls in about 7 s under
// load: the storm gets 30 s.
runSandboxSecuritySuite({
  name: 'quickjs',
  create: createQuickJsSandbox(),
  api: { describe, expect, test },
  memoryMb: 16,
  bridgeStormMs: 30_000,
});
