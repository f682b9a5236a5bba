import { createMemoryArtifactStore } from '@rlm/artifacts';
import { createRLM } from '@rlm/core';
import { createScriptedModel, measureSlowdown, timeScaled } from '@rlm/core/testing';
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
      // The steps themselves count against it (the second in a restarted worker): on a loaded
      // machine it grows with the load, as the bound on the run below does.
      execTimeoutMs: Math.round(execTimeoutMs * measureSlowdown()),
    });
    const { value: result, scaledMs } = await timeScaled(() => rlm.query('q', 'c'));
    expect(result.answer).toBe(42);
    expect(scaledMs).toBeLessThan(10 * execTimeoutMs);
    expect(JSON.stringify(llm.requests[1]!.messages)).toContain('step done');
  });
});

describe("the execution timeout counts the code's running time, whatever it keeps pending", () => {
  const timeoutMs = 1_000;
  /** Computes for `ms` milliseconds without yielding. */
  const burst = (ms: number) => `{ const t = Date.now(); while (Date.now() - t < ${ms}) {} }`;
  const evasions = [
    {
      evasion: 'SHOW_VARS() called again and again, computing while it is pending',
      code: `for (;;) { SHOW_VARS(); ${burst(200)} await new Promise((resolve) => setTimeout(resolve, 1)); }`,
    },
    {
      evasion: 'a slow llm_query kept pending, computing in bursts between pauses',
      code: `llm_query("take your time");\nfor (;;) { ${burst(50)} await new Promise((resolve) => setTimeout(resolve, 5)); }`,
    },
  ];

  test.each(evasions)(
    '$evasion: stopped near the timeout',
    async ({ code }) => {
      const llm = createScriptedModel([repl(code), repl('SUBMIT("after")')]);
      await using rlm = createRLM({
        llm,
        // A model call that takes a minute: pending for the whole block.
        subLlm: createScriptedModel([], { fallback: () => ({ text: 'slow', delayMs: 60_000 }) }),
        sandbox: sandboxFactory,
        execTimeoutMs: timeoutMs,
      });
      const { value: result, scaledMs } = await timeScaled(() => rlm.query('q', 'c'));
      expect(result.answer).toBe('after');
      // The block wants to compute for a minute; it is stopped after about a second of it.
      expect(scaledMs).toBeLessThan(10 * timeoutMs);
      expect(JSON.stringify(llm.requests[1]!.messages)).toContain(
        `Execution timed out after ${timeoutMs} ms`,
      );
    },
    60_000,
  );

  test('awaiting a slow model longer than the timeout, idle, is not stopped', async () => {
    const llm = createScriptedModel([
      repl('const late = await llm_query("slow")'),
      repl('SUBMIT(late)'),
    ]);
    await using rlm = createRLM({
      llm,
      subLlm: createScriptedModel([], {
        fallback: () => ({ text: 'worth the wait', delayMs: 3 * timeoutMs }),
      }),
      sandbox: sandboxFactory,
      execTimeoutMs: timeoutMs,
    });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe('worth the wait');
    expect(JSON.stringify(llm.requests[1]!.messages)).not.toContain('timed out');
  }, 60_000);
});
