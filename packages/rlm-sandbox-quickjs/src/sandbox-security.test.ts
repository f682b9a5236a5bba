import { runSandboxSecuritySuite } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { createQuickJsSandbox } from './create-quickjs-sandbox.js';

runSandboxSecuritySuite({ describe, expect, test }, createQuickJsSandbox());
