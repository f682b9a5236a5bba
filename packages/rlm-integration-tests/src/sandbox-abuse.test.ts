import { createMemoryArtifactStore } from '@rlm/artifacts';
import { createRLM } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const execTimeoutMs = 500;

/**
 * Code that keeps the sandbox busy after its execution has returned: after each step the loop
 * lists the variables and reads them for the checkpoint, which must not wait forever.
 */
const leftovers = [
  {
    abuse: 'a promise chain that never yields',
    code: '(async () => { for (;;) await null; })();',
  },
  {
    abuse: 'an unhandled rejection whose getters loop',
    code: 'Promise.reject(new Proxy({}, { get() { for (;;) {} } }));',
  },
  {
    abuse: 'a variable whose getter loops',
    code: 'class Slow {}\nconst slow = new Slow();\nObject.defineProperty(slow, "field", { enumerable: true, get() { for (;;) {} } });',
  },
  {
    abuse: 'a revoked proxy in a variable',
    code: 'const { proxy: revoked, revoke } = Proxy.revocable({}, {});\nrevoke();',
  },
];

describe('model code that leaves work behind does not hang the run', () => {
  test.each(leftovers)('$abuse: the run still finishes', async ({ code }) => {
    const llm = createScriptedModel([
      repl(`const kept = 41;\n${code}\n"step done"`),
      repl('SUBMIT(kept + 1)'),
    ]);
    await using rlm = createRLM({
      llm,
      sandbox: sandboxFactory,
      artifacts: createMemoryArtifactStore(),
      execTimeoutMs,
    });
    const started = performance.now();
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe(42);
    expect(performance.now() - started).toBeLessThan(10 * execTimeoutMs);
    expect(JSON.stringify(llm.requests[1]!.messages)).toContain('step done');
  });
});
