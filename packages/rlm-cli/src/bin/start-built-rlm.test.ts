import { fakeText } from '@rlm/anthropic/testing';
import { describe, expect, test } from 'vitest';
import { startBuiltRlm, testAnthropicKey } from './start-built-rlm.js';
import { useBuiltRlmWorkspace } from './use-built-rlm-workspace.js';

/** The bin harness itself, against the real bin: what the other bin tests rely on. */

const { root, serve } = useBuiltRlmWorkspace('rlm-cli-harness-');

describe('startBuiltRlm', () => {
  test('stderrContains resolves on text printed; once the bin has exited without the text it rejects with the stderr', async () => {
    const running = startBuiltRlm(['q', '--frobnicate'], { cwd: root });
    await running.stderrContains('--frobnicate');
    expect(await running.done).toMatchObject({ code: 2, signal: null, stdout: '' });
    await expect(running.stderrContains('never printed')).rejects.toThrow(
      /^exited before printing "never printed": rlm: .*--frobnicate/,
    );
  });

  test('the Anthropic pair is set only with a baseURL; an env entry of undefined drops it', async () => {
    const server = await serve([fakeText('FINAL(ok)')]);
    const withKey = await startBuiltRlm(['q', '--no-store'], { cwd: root, baseURL: server.url })
      .done;
    expect(withKey).toMatchObject({ code: 0, stdout: 'ok\n' });
    expect(server.requests.map((request) => request.apiKey)).toEqual([testAnthropicKey]);
    const noBaseURL = await startBuiltRlm(['q', '--no-store'], { cwd: root }).done;
    const dropped = await startBuiltRlm(['q', '--no-store'], {
      cwd: root,
      baseURL: server.url,
      env: { ANTHROPIC_API_KEY: undefined },
    }).done;
    for (const result of [noBaseURL, dropped]) {
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^rlm: ANTHROPIC_API_KEY is not set; [^\n]+\n$/);
    }
    expect(server.requests).toHaveLength(1);
  });
});
