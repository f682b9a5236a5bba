import { runSandboxSecuritySuite } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { createQuickJsSandbox } from './create-quickjs-sandbox.js';

// QuickJS allocates objects several times slower than V8: at the default 128 MB its heap bomb
// fills the heap in about 19 s, past the case's 15 s timeout. The limit works the same at 32 MB.
runSandboxSecuritySuite({ describe, expect, test }, createQuickJsSandbox(), { memoryMb: 32 });
